<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Config;
use Paygate\Exception\AuthenticationException;
use Paygate\Exception\ConflictException;
use Paygate\Exception\NotFoundException;
use Paygate\Exception\WebhookVerificationException as Refused;
use Paygate\Model\Order;
use Paygate\Tests\lib\Receiver;
use Paygate\Tests\lib\TestCase;
use Paygate\Webhook\RefundWebhook;
use Paygate\Webhook\Verifier;

/**
 * The SDK against the real gateway (make test-sdk sets GATEWAY_SDK_BASE_URL
 * and a sandbox merchant's credentials; skipped without them).
 */
final class LiveTest extends TestCase
{
    private function client(array $override = []): Client
    {
        $base = self::env('GATEWAY_SDK_BASE_URL') ?? $this->skip('GATEWAY_SDK_BASE_URL is not set: no gateway to test against');
        $a = $override + [
            'appId' => self::env('GATEWAY_SDK_APPID'), 'apiKey' => self::env('GATEWAY_SDK_API_KEY'), 'queryKey' => self::env('GATEWAY_SDK_QUERY_KEY'),
        ];
        return new Client(new Config($base, (string) $a['appId'], (string) $a['apiKey'], (string) $a['queryKey'], '127.0.0.1'));
    }

    private static function ref(string $what): string
    {
        return 'PHP-' . $what . '-' . bin2hex(random_bytes(4));
    }

    private static function httpStatus(string $method, string $url, ?string $form = null): array
    {
        $ch = curl_init($url);
        curl_setopt_array($ch, [CURLOPT_CUSTOMREQUEST => $method, CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT => 20, CURLOPT_FOLLOWLOCATION => false]);
        if ($form !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $form);
        }
        $body = (string) curl_exec($ch);
        $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        return [$status, $body];
    }

    private function pay(Client $c, string $paymentId): void
    {
        $cfg = $c->config();
        [$status, $body] = self::httpStatus('POST', $cfg->baseUrl . '/sandbox/orders/' . rawurlencode($paymentId) . '/pay',
            http_build_query(['appid' => $cfg->appId, 'key' => $cfg->queryKey]));
        $this->assertSame(200, $status, "sandbox pay: $body");
    }

    public function testOrderLifeWithWebhook(): void
    {
        $c = $this->client();
        $secret = self::env('GATEWAY_SDK_WEBHOOK_SECRET') ?? $this->skip('GATEWAY_SDK_WEBHOOK_SECRET is not set');
        $rcv = new Receiver();
        try {
            $ref = self::ref('paid');
            $params = ['amount' => '12.34', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a', 'clientOrderId' => $ref,
                'description' => 'SDK test: café + 订单', 'notify_url' => $rcv->url . '/hook?shop=1'];
            $created = $c->create($params);
            $this->assertSame('12.34', $created->amount, 'created amount');
            $this->assertTrue(!$created->idempotent && $created->redirectUrl !== null, 'a new order with a payer URL');

            [$status, $page] = self::httpStatus('GET', $c->hostedUrl($params));
            $this->assertSame(200, $status, 'hosted page of the same clientOrderId');
            $this->assertTrue(stripos($page, '<html') !== false, 'the hosted answer is a page');
            $unpaid = $c->order($created->paymentId);
            $this->assertTrue(in_array($unpaid->status, [Order::PENDING, Order::READY], true) && $unpaid->amount === '12.34', 'unpaid order read back');

            $this->pay($c, $created->paymentId);
            $hook = $rcv->await(static fn (array $r): bool => ($r['headers']['webhook-id'] ?? $r['headers']['Webhook-Id'] ?? '') === 'evt_paid_' . $created->paymentId);
            $v = $c->webhooks($secret);
            $paid = $v->paid($hook['headers'], $hook['body']);
            $this->assertSame([$created->paymentId, '12.34', 'paid', $ref], [$paid->paymentId, $paid->amount, $paid->statusStr, $paid->clientOrderId], 'paid webhook');
            $this->assertSame('SDK test: café + 订单', $v->verifyForm($hook['body'])['description'], 'MD5 form verified on its own');
            $this->assertSame('evt_paid_' . $created->paymentId, $v->verifyHeaders($hook['headers'], $hook['body']), 'headers verified on their own');
            $this->refusals($secret, $c->config()->apiKey, $hook);

            $o = $c->order($created->paymentId);
            $this->assertTrue($o->isPaid() && $o->completedTime !== null, 'paid order read back');
            $this->assertThrows(ConflictException::class, fn () => $c->cancel($created->paymentId), 'a paid order is not cancelled');

            $r = $c->refund($created->paymentId, '2.34', ['reason' => 'returned', 'clientRefundId' => $ref . '-R1']);
            $this->assertSame(['succeeded', '2.34', false], [$r->status, $r->refundedAmount, $r->idempotent], 'refund');
            $again = $c->refund($created->paymentId, '2.34', ['reason' => 'returned', 'clientRefundId' => $ref . '-R1']);
            $this->assertSame([$r->refundId, true], [$again->refundId, $again->idempotent], 'the same clientRefundId refunds nothing more');
            $over = $this->assertThrows(ConflictException::class, fn () => $c->refund($created->paymentId, '10.01'));
            $this->assertSame(['refund_exceeds_paid', 409], [$over->getErrorKind(), $over->getHttpStatus()], 'over the rest');
            $this->assertSame(1, count($c->order($created->paymentId)->refunds ?? []), 'the order lists its refund');
            $rh = $rcv->await(static fn (array $x): bool => ($x['headers']['webhook-id'] ?? $x['headers']['Webhook-Id'] ?? '') === 'evt_refund_' . $r->refundId);
            $rw = $v->callback($rh['headers'], $rh['body']);
            $this->assertTrue($rw instanceof RefundWebhook, 'a refund webhook');
            $this->assertSame([$r->refundId, '2.34', 'succeeded', '2.34'], [$rw->refundId, $rw->amount, $rw->refundStatus, $rw->refundedAmount], 'refund webhook');
            $this->assertThrows(Refused::class, fn () => $v->paid($rh['headers'], $rh['body']), 'a refund webhook is not a paid one');
        } finally {
            $rcv->stop();
        }
    }

    /** The real webhook, altered: each alteration refused, for its reason. */
    private function refusals(string $secret, string $apiKey, array $hook): void
    {
        $ts = (int) ($hook['headers']['webhook-timestamp'] ?? $hook['headers']['Webhook-Timestamp']);
        $h = array_change_key_case($hook['headers'], CASE_LOWER);
        $tampered = preg_replace('/amount=12\.34/', 'amount=92.34', $hook['body'], 1, $n);
        $this->assertSame(1, $n, 'the body holds the amount');
        $v = new Verifier($secret, $apiKey, 300, static fn (): int => $ts);
        $cases = [
            'tampered amount, headers' => [fn () => $v->verifyHeaders($h, $tampered), Refused::REASON_BAD_SIGNATURE],
            'tampered amount, MD5 form' => [fn () => $v->verifyForm($tampered), Refused::REASON_BAD_SIGN],
            'stale timestamp' => [fn () => (new Verifier($secret, $apiKey, 300, static fn (): int => $ts + 301))->paid($h, $hook['body']), Refused::REASON_STALE_TIMESTAMP],
            'missing webhook-signature' => [fn () => $v->paid(array_diff_key($h, ['webhook-signature' => 1]), $hook['body']), Refused::REASON_MISSING_HEADER],
            'missing webhook-timestamp' => [fn () => $v->paid(array_diff_key($h, ['webhook-timestamp' => 1]), $hook['body']), Refused::REASON_MISSING_HEADER],
        ];
        foreach ($cases as $name => [$fn, $reason]) {
            $this->assertSame($reason, $this->assertThrows(Refused::class, $fn, $name)->getReason(), $name);
        }
    }

    public function testCancelAndIdempotency(): void
    {
        $c = $this->client();
        $params = ['amount' => 7, 'currency' => 'CNY', 'paymentMethod' => 'wallet_a', 'clientOrderId' => self::ref('cancel')];
        $key = self::ref('key');
        $first = $c->create($params, $key);
        $replay = $c->create($params, $key);
        $this->assertSame($first->paymentId, $replay->paymentId, 'the same Idempotency-Key answers the same order');
        $this->assertSame('7.00', $first->amount, 'an integer amount');
        $o = $c->cancel($first->paymentId);
        $this->assertSame([Order::CANCELLED, 'cancelled'], [$o->status, $o->statusStr], 'cancelled');
        $this->assertSame(Order::CANCELLED, $c->cancel($first->paymentId)->status, 'cancelled stays so');
        $fresh = $c->create($params);
        $this->assertTrue($fresh->paymentId !== $first->paymentId, 'a cancelled clientOrderId makes a new order');
    }

    public function testListPaging(): void
    {
        $c = $this->client();
        $ids = [];
        for ($i = 0; $i < 3; $i++) {
            $ids[] = $c->create(['amount' => '1.00', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a', 'clientOrderId' => self::ref("list$i")])->paymentId;
        }
        // The listing is ClickHouse's, a projector's flush behind.
        $until = microtime(true) + 20;
        do {
            $seen = [];
            foreach ($c->eachOrder([], 2) as $o) {
                $seen[] = $o->paymentId;
            }
            if (array_diff($ids, $seen) === []) {
                break;
            }
            usleep(250_000);
        } while (microtime(true) < $until);
        $this->assertSame([], array_values(array_diff($ids, $seen)), 'every order listed');
        $this->assertSame(count($seen), count(array_unique($seen)), 'no order on two pages');
        $p1 = $c->orders(1, 2);
        $p2 = $c->orders(2, 2);
        $this->assertSame([2, 2, true], [count($p1->orders), $p1->limit, $p1->hasMore()], 'page 1');
        $this->assertSame([], array_intersect(array_map(static fn ($o) => $o->paymentId, $p1->orders), array_map(static fn ($o) => $o->paymentId, $p2->orders)), 'pages apart');
        $this->assertSame(count($seen), $p1->total, 'total');
    }

    public function testBalanceAndErrors(): void
    {
        $c = $this->client();
        $balances = $c->balance();
        printf("     %d balance(s)%s\n", count($balances), $balances === [] ? '' : ': ' . json_encode($balances[0]->raw));
        foreach ($balances as $b) {
            $this->assertTrue(preg_match('/^[A-Z]{3}$/', $b->currency) === 1, 'balance currency');
        }
        $this->assertTrue(is_array($c->transactions(['limit' => 5])->transactions), 'transactions');
        $nf = $this->assertThrows(NotFoundException::class, fn () => $c->order('P00000000000000000000'));
        $this->assertSame(['order_not_found', 404], [$nf->getErrorKind(), $nf->getHttpStatus()], 'unknown order');
        $bad = $this->assertThrows(AuthenticationException::class, fn () => $this->client(['queryKey' => '00000000-0000-4000-8000-000000000000'])->order('P1'));
        $this->assertSame(401, $bad->getHttpStatus(), 'wrong query key: ' . $bad->getErrorKind());
        $sign = $this->assertThrows(AuthenticationException::class, fn () => $this->client(['apiKey' => 'not-the-key'])->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']));
        $this->assertSame(['invalid_sign', 401], [$sign->getErrorKind(), $sign->getHttpStatus()], 'wrong API key');
    }
}
