package bsc

// WordUint reads an ABI word, for the external decoding test (the tests
// drive the simulator, which imports this package).
var WordUint = wordUint
