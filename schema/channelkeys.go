package schema

// Channel routing keys. The routing data (settings, modes, pins, keywords,
// breaker states) is small and read by every process into its own copy
// (channel.Directory), so it lives on the {merchants} slot beside the fee
// schedules; cap counters are written per order and get a slot of their
// own per channel, so one busy channel's counters never crowd another's.

// ChannelsKey is the hash of every channel's routing data: fields
// "c:<ref>" (settings JSON), "mode:<[sandbox.]method>", "pin:<appid>:<[sandbox.]method>"
// and "kw" (the operator's keyword list).
const ChannelsKey = "gw:{merchants}:channels"

// ChannelBreakersKey is the hash of channels' breaker states: field <ref>,
// value the state's JSON.
const ChannelBreakersKey = "gw:{merchants}:channels:breaker"

// ChannelsVersionKey is bumped by every change to ChannelsKey or
// ChannelBreakersKey, so every process reloads its copy within a second.
const ChannelsVersionKey = "gw:{merchants}:channels:version"

// ChannelCapKey is channel ref's counters for one day of its time zone
// (day as 20261128): fields "n" (orders) and "amt" (minor units).
func ChannelCapKey(ref, day string) string { return "gw:{ch:" + ref + "}:cap:" + day }

// ChannelCapHoldKey marks order id's reservation on channel ref: it holds
// "<day>:<amount>", so a release gives back exactly what was taken, once.
func ChannelCapHoldKey(ref, orderID string) string { return "gw:{ch:" + ref + "}:hold:" + orderID }

// ChannelProbeKey is the lease of the one process that may probe a channel
// whose breaker is half open.
func ChannelProbeKey(ref string) string { return "gw:{ch:" + ref + "}:probe" }

// ChannelStatsKey is channel ref's initialisation attempts in one UTC
// minute ("200601021504"): fields ok and fail, summed over every process,
// so the console shows a cluster-wide success rate. Kept an hour.
func ChannelStatsKey(ref, minute string) string { return "gw:{ch:" + ref + "}:stats:" + minute }

// ChannelPaidKey is channel ref's paid orders of one day of its time zone
// (the ledger role writes it off the paid events): fields "n" (orders) and
// "amt" (minor units of the charged currency).
func ChannelPaidKey(ref, day string) string { return "gw:{ch:" + ref + "}:paid:" + day }

// ChannelPaidMarkKey marks order id as counted in ChannelPaidKey, so an
// event the ledger reads again is never counted twice.
func ChannelPaidMarkKey(ref, orderID string) string { return "gw:{ch:" + ref + "}:paidmark:" + orderID }
