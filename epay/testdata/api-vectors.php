<?php
// Writes api-vectors.json: api.php's requests and the answers the protocol
// gives, computed here (PHP's date() and json_encode, the protocol's own
// tools) from the fixture below, outside the gateway's code. Run:
//   php epay/testdata/api-vectors.php > epay/testdata/api-vectors.json
$now = 1764346800; // 2025-11-28 16:20:00 UTC
$merchants = [
    ['appid' => '1001', 'key' => 'k-1001', 'tz' => 'Asia/Shanghai', 'disabled' => false, 'available' => 12345, 'orders' => 3],
    ['appid' => '1002', 'key' => 'k-1002', 'tz' => '', 'disabled' => false, 'available' => 0, 'orders' => 1],
    ['appid' => '1003', 'key' => 'k-1003', 'tz' => '', 'disabled' => true, 'available' => 0, 'orders' => 0],
];
$types = 't1=wallet_a,t2=wallet_b';
// status: our codes (0 pending, 2 paid, 4 cancelled); amounts in minor units.
$orders = [
    ['id' => 'P-A1', 'appid' => '1001', 'coid' => 'A1', 'method' => 'wallet_b', 'amount' => 10050, 'status' => 2,
     'refunded' => 0, 'created' => $now - 3600, 'completed' => $now - 3000, 'name' => 'Box & co = 2', 'dtype' => '', 'dpar' => ''],
    ['id' => 'P-A2', 'appid' => '1001', 'coid' => 'A2', 'method' => 'wallet_a', 'amount' => 199, 'status' => 0,
     'refunded' => 0, 'created' => $now - 60, 'completed' => 0, 'name' => 'Pen', 'dtype' => 't1', 'dpar' => 'u=7&s=<b>'],
    ['id' => 'P-A3', 'appid' => '1001', 'coid' => '', 'method' => 'usdt_direct', 'amount' => 5000, 'status' => 2,
     'refunded' => 1000, 'created' => $now - 86400 * 2, 'completed' => $now - 86400 * 2 + 5, 'name' => 'Gift', 'dtype' => '', 'dpar' => ''],
    ['id' => 'P-B1', 'appid' => '1002', 'coid' => 'B1', 'method' => 'wallet_a', 'amount' => 700, 'status' => 4,
     'refunded' => 0, 'created' => $now - 10, 'completed' => $now - 5, 'name' => 'Cup', 'dtype' => '', 'dpar' => ''],
];

function word(string $types, string $method, string $dtype): string {
    if ($dtype !== '') return $dtype;
    foreach (explode(',', $types) as $pair) {
        [$w, $m] = explode('=', $pair);
        if ($m === $method) return $w;
    }
    return '';
}

function row(array $o, string $tz, string $types): array {
    date_default_timezone_set($tz === '' ? 'UTC' : $tz);
    $status = $o['status'] === 2 ? ($o['refunded'] > 0 ? 2 : 1) : 0;
    $r = ['trade_no' => $o['id'], 'out_trade_no' => $o['coid'], 'type' => word($types, $o['method'], $o['dtype']),
          'pid' => $o['appid'], 'addtime' => date('Y-m-d H:i:s', $o['created']),
          'endtime' => $o['completed'] ? date('Y-m-d H:i:s', $o['completed']) : null,
          'name' => $o['name'], 'money' => number_format($o['amount'] / 100, 2, '.', ''), 'param' => $o['dpar'],
          'buyer' => '', 'status' => $status];
    if ($status === 2) $r['refundmoney'] = number_format($o['refunded'] / 100, 2, '.', '');
    return $r;
}

$m1 = $merchants[0];
$cases = [];
$add = function (string $name, array $params, bool $post, array $answer) use (&$cases) {
    $cases[] = ['name' => $name, 'params' => $params, 'post' => $post, 'answer' => $answer];
};
$auth = ['pid' => '1001', 'key' => 'k-1001'];
$add('order by trade_no', $auth + ['act' => 'order', 'trade_no' => 'P-A1'], false,
    ['code' => 1, 'msg' => 'succ'] + row($orders[0], $m1['tz'], $types));
$add('order by out_trade_no, its own type word and param', $auth + ['act' => 'order', 'out_trade_no' => 'A2'], false,
    ['code' => 1, 'msg' => 'succ'] + row($orders[1], $m1['tz'], $types));
$add('refunded order, no word for its method', $auth + ['act' => 'order', 'trade_no' => 'P-A3'], false,
    ['code' => 1, 'msg' => 'succ'] + row($orders[2], $m1['tz'], $types));
$add('another merchant\'s order', $auth + ['act' => 'order', 'trade_no' => 'P-B1'], false,
    ['code' => -1, 'msg' => 'order does not exist']);
$add('another merchant\'s out_trade_no', $auth + ['act' => 'order', 'out_trade_no' => 'B1'], false,
    ['code' => -1, 'msg' => 'order does not exist']);
$add('no order number', $auth + ['act' => 'order'], false,
    ['code' => -4, 'msg' => 'trade_no or out_trade_no is required']);
$add('wrong key', ['pid' => '1001', 'key' => 'k-1002', 'act' => 'query'], false,
    ['code' => -3, 'msg' => 'merchant key is wrong']);
$add('no key', ['pid' => '1001', 'act' => 'query'], false, ['code' => -3, 'msg' => 'merchant key is wrong']);
$add('unknown pid', ['pid' => '9999', 'key' => 'k-1001', 'act' => 'query'], false,
    ['code' => -3, 'msg' => 'merchant does not exist']);
$add('disabled pid', ['pid' => '1003', 'key' => 'k-1003', 'act' => 'query'], false,
    ['code' => -1, 'msg' => 'merchant is disabled']);
$add('no act', $auth, false, ['code' => -5, 'msg' => 'No Act!']);
$add('settle is not served', $auth + ['act' => 'settle'], false, ['code' => -5, 'msg' => 'No Act!']);
$add('refund by GET', $auth + ['act' => 'refund', 'trade_no' => 'P-A1', 'money' => '1'], false,
    ['code' => -5, 'msg' => 'act=refund must be sent by POST']);
// Paid orders created today and yesterday, days in the merchant's zone.
date_default_timezone_set($m1['tz']);
$paidOn = fn(string $day) => count(array_filter($orders, fn($o) => $o['appid'] === '1001' && $o['status'] === 2
    && date('Y-m-d', $o['created']) === $day));
$add('merchant info', $auth + ['act' => 'query'], false,
    ['code' => 1, 'pid' => 1001, 'active' => 1, 'money' => number_format($m1['available'] / 100, 2, '.', ''),
     'orders' => $m1['orders'], 'orders_today' => $paidOn(date('Y-m-d', $now)),
     'orders_lastday' => $paidOn(date('Y-m-d', $now - 86400))]);
$rows = array_map(fn($o) => row($o, $m1['tz'], $types), [$orders[1], $orders[0], $orders[2]]); // newest first
$add('orders, limit 1000 read as 50', $auth + ['act' => 'orders', 'limit' => '1000'], false,
    ['code' => 1, 'msg' => 'succ', 'count' => 3, 'data' => $rows]);
$add('orders, offset 1 limit 1', $auth + ['act' => 'orders', 'limit' => '1', 'offset' => '1'], false,
    ['code' => 1, 'msg' => 'succ', 'count' => 1, 'data' => [$rows[1]]]);
$add('orders, page 2 of 2', $auth + ['act' => 'orders', 'limit' => '2', 'page' => '2'], false,
    ['code' => 1, 'msg' => 'succ', 'count' => 1, 'data' => [$rows[2]]]);
$add('orders, a limit that is no number', $auth + ['act' => 'orders', 'limit' => '2e1'], false,
    ['code' => -1, 'msg' => 'limit must be a whole number from 1']);
$add('refund', $auth + ['act' => 'refund', 'out_trade_no' => 'A1', 'money' => '1.50', 'out_refund_no' => 'r-1'], true,
    ['code' => 1, 'msg' => 'refund succeeded; amount 1.50', 'refund_no' => 'rf-1', 'out_refund_no' => 'r-1',
     'trade_no' => 'P-A1', 'out_trade_no' => 'A1', 'money' => '1.50', 'status' => 'succeeded']);
$add('refund, money with an exponent', $auth + ['act' => 'refund', 'trade_no' => 'P-A1', 'money' => '1e2'], true,
    ['code' => -1, 'msg' => 'money must be a positive decimal with at most 2 decimals, such as 10 or 10.50']);
$add('refund, money with three decimals', $auth + ['act' => 'refund', 'trade_no' => 'P-A1', 'money' => '1.001'], true,
    ['code' => -1, 'msg' => 'money must be a positive decimal with at most 2 decimals, such as 10 or 10.50']);
echo json_encode(['now' => $now, 'types' => $types, 'merchants' => $merchants, 'orders' => $orders, 'cases' => $cases],
    JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
