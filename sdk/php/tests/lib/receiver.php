<?php

// Router of the live test's webhook receiver (php -S 127.0.0.1:PORT
// receiver.php): writes each request it gets, headers and raw body, as one
// JSON file in PAYGATE_RECEIVER_DIR and acknowledges it with "success".

declare(strict_types=1);

$dir = getenv('PAYGATE_RECEIVER_DIR');
if (!is_string($dir) || !is_dir($dir)) {
    http_response_code(500);
    exit;
}
$record = json_encode([
    'method' => $_SERVER['REQUEST_METHOD'] ?? '',
    'uri' => $_SERVER['REQUEST_URI'] ?? '',
    'headers' => getallheaders(),
    'body' => (string) file_get_contents('php://input'),
], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
$name = $dir . '/' . hrtime(true);
file_put_contents($name . '.tmp', $record);
rename($name . '.tmp', $name . '.json');
header('Content-Type: text/plain');
echo 'success';
