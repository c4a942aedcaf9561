<?php
// A merchant's client of the gateway's epay-compatible door, written from
// docs/epay.md alone (no code of the gateway's): what a plugin does.
//
//   php client.php order BASE PID KEY TYPE OUT_TRADE_NO NOTIFY_URL MONEY NAME [PARAM]
//       mapi.php: prints the JSON answer
//   php client.php query BASE PID KEY QUERY_KEY TRADE_NO
//       api.php?act=order; where the gateway serves no api.php (404), the
//       gateway's own GET /api/order with the query key. Prints
//       {"via":"api.php"|"api/order","answer":{...}}
//   php client.php refund BASE PID KEY TRADE_NO MONEY
//       api.php?act=refund; prints {"via":"api.php","answer":{...}} or
//       {"via":"none"} where no api.php is served
//   php -S 127.0.0.1:PORT client.php   (env EPAY_KEY, EPAY_LOG)
//       the notify_url: verifies each GET, appends what verified to EPAY_LOG
//       as a JSON line, answers "success" (or "fail")

// epay_sign is docs/epay.md's signature: sorted by name, empty values and
// sign, sign_type left out, name=value joined with &, nothing encoded, the
// key appended, MD5.
function epay_sign(array $params, string $key): string {
    ksort($params, SORT_STRING);
    $pairs = [];
    foreach ($params as $name => $value) {
        if ($name === 'sign' || $name === 'sign_type' || (string)$value === '') {
            continue;
        }
        $pairs[] = $name . '=' . $value;
    }
    return md5(implode('&', $pairs) . $key);
}

function epay_verify(array $params, string $key): bool {
    if (!isset($params['sign']) || ($params['sign_type'] ?? 'MD5') !== 'MD5') {
        return false;
    }
    return hash_equals(epay_sign($params, $key), strtolower((string)$params['sign']));
}

// http_call answers the body, and the status in $status.
function http_call(string $method, string $url, ?string $form = null, ?int &$status = null): string {
    $ch = curl_init($url);
    curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
    curl_setopt($ch, CURLOPT_TIMEOUT, 10);
    if ($method === 'POST') {
        curl_setopt($ch, CURLOPT_POST, true);
        curl_setopt($ch, CURLOPT_POSTFIELDS, $form);
    }
    $body = curl_exec($ch);
    if ($body === false) {
        fwrite(STDERR, 'request failed: ' . curl_error($ch) . "\n");
        exit(1);
    }
    $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
    return $body;
}

if (PHP_SAPI === 'cli-server') {
    // The notify_url. The query holds only the gateway's parameters (docs:
    // give a notify_url without a query of its own).
    $ok = epay_verify($_GET, (string)getenv('EPAY_KEY')) && ($_GET['trade_status'] ?? '') === 'TRADE_SUCCESS';
    if ($ok) {
        file_put_contents((string)getenv('EPAY_LOG'), json_encode($_GET) . "\n", FILE_APPEND | LOCK_EX);
    }
    echo $ok ? 'success' : 'fail';
    return;
}

$args = array_slice($argv, 1);
switch ($args[0] ?? '') {
case 'order':
    [, $base, $pid, $key, $type, $outTradeNo, $notifyUrl, $money, $name] = $args;
    $params = ['pid' => $pid, 'type' => $type, 'out_trade_no' => $outTradeNo, 'notify_url' => $notifyUrl,
        'name' => $name, 'money' => $money, 'clientip' => '203.0.113.7', 'device' => 'pc', 'param' => $args[9] ?? ''];
    $params['sign'] = epay_sign($params, $key);
    $params['sign_type'] = 'MD5';
    echo http_call('POST', rtrim($base, '/') . '/mapi.php', http_build_query($params)), "\n";
    break;
case 'query':
    [, $base, $pid, $key, $queryKey, $tradeNo] = $args;
    $base = rtrim($base, '/');
    $q = http_build_query(['act' => 'order', 'pid' => $pid, 'key' => $key, 'trade_no' => $tradeNo]);
    $body = http_call('GET', $base . '/api.php?' . $q, null, $status);
    if ($status != 404) {
        echo json_encode(['via' => 'api.php', 'answer' => json_decode($body, true)]), "\n";
        break;
    }
    $q = http_build_query(['appid' => $pid, 'key' => $queryKey, 'action' => 'order', 'paymentId' => $tradeNo]);
    echo json_encode(['via' => 'api/order', 'answer' => json_decode(http_call('GET', $base . '/api/order?' . $q), true)]), "\n";
    break;
case 'refund':
    [, $base, $pid, $key, $tradeNo, $money] = $args;
    $form = http_build_query(['pid' => $pid, 'key' => $key, 'trade_no' => $tradeNo, 'money' => $money]);
    $body = http_call('POST', rtrim($base, '/') . '/api.php?act=refund', $form, $status);
    echo json_encode($status == 404 ? ['via' => 'none'] : ['via' => 'api.php', 'answer' => json_decode($body, true)]), "\n";
    break;
default:
    fwrite(STDERR, "usage: php client.php order|query|refund ...\n");
    exit(2);
}
