<?php
// Writes vectors.json: the epay door's requests and notifications with
// their signs computed here, by the protocol's plugin algorithm (ksort,
// values != '' but sign and sign_type, joined with &, key appended, md5),
// outside the gateway's Go code. Run: php vectors.php > vectors.json
function epay_sign(array $p, string $key): array {
    ksort($p);
    $s = '';
    foreach ($p as $k => $v) {
        if ($k != 'sign' && $k != 'sign_type' && $v !== '') {
            $s .= $k . '=' . $v . '&';
        }
    }
    $s = substr($s, 0, -1);
    return [$s, md5($s . $key)];
}

$requests = [
    ['name' => 'mapi.php order', 'key' => 'k3y', 'params' => ['pid' => '1001', 'type' => 't1', 'out_trade_no' => 'A-1',
        'notify_url' => 'https://shop.example/n', 'name' => 'Box', 'money' => '1.00', 'clientip' => '203.0.113.5']],
    ['name' => 'empty param left out, sign_type too', 'key' => 'k3y', 'params' => ['pid' => '1001', 'type' => 't2',
        'out_trade_no' => 'A-2', 'notify_url' => 'https://shop.example/n', 'return_url' => 'https://shop.example/r',
        'name' => 'Box', 'money' => '10', 'param' => '', 'sign_type' => 'MD5']],
    ['name' => 'values with & = and UTF-8 signed as sent', 'key' => 'another key', 'params' => ['pid' => '1002',
        'out_trade_no' => 'A-3', 'notify_url' => 'https://shop.example/n?x=1', 'return_url' => 'https://shop.example/r',
        'name' => 'Tom & Jerry = 2 件', 'money' => '0.50', 'param' => 'a&b=c <i>x</i>']],
];
foreach ($requests as &$r) {
    [$r['base'], $r['sign']] = epay_sign($r['params'], $r['key']);
}
unset($r);

// A paid order's notification: what the gateway must send for the order.
$notifications = [
    ['name' => 'type sent, param sent', 'key' => 'k3y',
        'order' => ['appid' => '1001', 'id' => 'P20261128000000000000000000000000001', 'clientOrderId' => 'A-1',
            'description' => 'Tom & Jerry', 'amount' => 1230, 'doorType' => 't1', 'doorParam' => 'a&b=c'],
        'params' => ['pid' => '1001', 'trade_no' => 'P20261128000000000000000000000000001', 'out_trade_no' => 'A-1',
            'type' => 't1', 'name' => 'Tom & Jerry', 'money' => '12.30', 'trade_status' => 'TRADE_SUCCESS', 'param' => 'a&b=c']],
    ['name' => 'no param: left out', 'key' => 'k3y',
        'order' => ['appid' => '1001', 'id' => 'P20261128000000000000000000000000002', 'clientOrderId' => 'A-2',
            'description' => 'Box', 'amount' => 1000, 'doorType' => 't2', 'doorParam' => ''],
        'params' => ['pid' => '1001', 'trade_no' => 'P20261128000000000000000000000000002', 'out_trade_no' => 'A-2',
            'type' => 't2', 'name' => 'Box', 'money' => '10.00', 'trade_status' => 'TRADE_SUCCESS']],
];
foreach ($notifications as &$n) {
    [$n['base'], $n['sign']] = epay_sign($n['params'], $n['key']);
}
unset($n);

// mapi.php's answers for an order by device: chosen by hand from the
// protocol's definitions of payurl, qrcode and urlscheme.
$answers = [
    ['name' => 'a desktop scans the QR code', 'device' => 'pc', 'order' => ['id' => 'P1', 'method' => 'wallet_a', 'qrPayload' => 'https://q.example/1'],
        'answer' => ['code' => 1, 'msg' => 'succ', 'trade_no' => 'P1', 'qrcode' => 'https://q.example/1']],
    ['name' => 'no device is a desktop', 'device' => '', 'order' => ['id' => 'P1', 'method' => 'wallet_a', 'qrPayload' => 'https://q.example/1'],
        'answer' => ['code' => 1, 'msg' => 'succ', 'trade_no' => 'P1', 'qrcode' => 'https://q.example/1']],
    ['name' => 'a phone goes to the page', 'device' => 'mobile', 'order' => ['id' => 'P1', 'method' => 'wallet_a', 'qrPayload' => 'https://q.example/1'],
        'answer' => ['code' => 1, 'msg' => 'succ', 'trade_no' => 'P1', 'payurl' => 'https://gw.example/payment/P1']],
    ['name' => 'an app link', 'device' => 'app', 'order' => ['id' => 'P2', 'method' => 'wallet_b', 'providerUrl' => 'appx://pay?o=2'],
        'answer' => ['code' => 1, 'msg' => 'succ', 'trade_no' => 'P2', 'urlscheme' => 'appx://pay?o=2']],
    ['name' => 'the provider page', 'device' => 'pc', 'order' => ['id' => 'P3', 'method' => 'wallet_b', 'providerUrl' => 'https://prov.example/p/3'],
        'answer' => ['code' => 1, 'msg' => 'succ', 'trade_no' => 'P3', 'payurl' => 'https://prov.example/p/3']],
];

echo json_encode(['base' => 'https://gw.example', 'requests' => $requests, 'notifications' => $notifications, 'answers' => $answers],
    JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
