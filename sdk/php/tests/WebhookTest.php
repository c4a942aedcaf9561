<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Exception\WebhookVerificationException as Refused;
use Paygate\Signer;
use Paygate\Tests\lib\TestCase;
use Paygate\Webhook\Verifier;

/**
 * Webhook verification on webhooks built here the way the gateway's
 * dispatcher builds them: the MD5-signed form and the Standard Webhooks
 * headers. Each refusal names the reason it was refused for.
 */
final class WebhookTest extends TestCase
{
    private const API_KEY = 'k3y_5ecret_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    private const NOW = 1_767_323_105;

    private static function secret(string $seed): string
    {
        return 'whsec_' . base64_encode(hash('sha256', $seed, true));
    }

    /** A paid webhook as sent: [headers, raw body], signed with $secrets. */
    public static function paidWebhook(array $secrets, int $at, array $override = []): array
    {
        $p = array_merge([
            'paymentId' => 'P20261121223320ab12cd', 'amount' => '100.00', 'currency' => 'CNY', 'status' => '2',
            'status_str' => 'paid', 'paymentMethod' => 'wallet_a', 'createdAt' => '2026-11-21T22:33:20Z',
            'completedTime' => '2026-11-21T22:35:01Z', 'clientOrderId' => 'A-77',
        ], $override);
        $p['sign'] = Signer::sign($p, self::API_KEY);
        $p['sign_type'] = 'MD5';
        $body = http_build_query($p, '', '&', PHP_QUERY_RFC1738);
        return [self::headers('evt_paid_' . $p['paymentId'], $at, $body, $secrets), $body];
    }

    public static function headers(string $id, int $at, string $body, array $secrets): array
    {
        $sigs = array_map(static function (string $s) use ($id, $at, $body): string {
            $key = base64_decode(substr($s, 6), true);
            return 'v1,' . base64_encode(hash_hmac('sha256', "$id.$at.$body", $key, true));
        }, $secrets);
        return ['Webhook-Id' => $id, 'Webhook-Timestamp' => (string) $at, 'Webhook-Signature' => implode(' ', $sigs)];
    }

    private function verifier(string $secret, int $now = self::NOW): Verifier
    {
        return new Verifier($secret, self::API_KEY, 300, static fn (): int => $now);
    }

    public function testAccepted(): void
    {
        $ours = self::secret('ours');
        [$h, $body] = self::paidWebhook([$ours], self::NOW);
        [$h2, $body2] = self::paidWebhook([self::secret('new one'), $ours], self::NOW);
        $psr = array_map(static fn (string $v): array => [$v], $h);
        $server = [];
        foreach ($h as $k => $v) {
            $server['HTTP_' . strtoupper(str_replace('-', '_', $k))] = $v;
        }
        $cases = [
            'one signature' => [$h, $body, self::NOW],
            'rotated: ours is the second signature' => [$h2, $body2, self::NOW],
            'PSR-7 / Symfony header lists' => [$psr, $body, self::NOW],
            '$_SERVER names' => [$server, $body, self::NOW],
            '5 minutes late, the edge' => [$h, $body, self::NOW + 300],
            '5 minutes early, the edge' => [$h, $body, self::NOW - 300],
        ];
        foreach ($cases as $name => [$headers, $raw, $now]) {
            $paid = $this->verifier($ours, $now)->paid($headers, $raw);
            $this->assertSame('100.00', $paid->amount, $name);
            $this->assertSame('P20261121223320ab12cd', $paid->paymentId, $name);
            $this->assertSame('evt_paid_P20261121223320ab12cd', $this->verifier($ours, $now)->verifyHeaders($headers, $raw), $name);
        }
    }

    public function testRefused(): void
    {
        $ours = self::secret('ours');
        [$h, $body] = self::paidWebhook([$ours], self::NOW);
        $tampered = str_replace('amount=100.00', 'amount=900.00', $body);
        $without = static fn (string $name): array => array_diff_key($h, [$name => true]);
        // A create the merchant signed, replayed as a webhook: its MD5 verifies.
        $create = ['appid' => '1001', 'action' => 'createorder', 'paymentId' => 'P1', 'status' => '2', 'amount' => '1'];
        $create['sign'] = Signer::sign($create, self::API_KEY);
        $cases = [
            'tampered amount: headers' => [fn ($v) => $v->verifyHeaders($h, $tampered), Refused::REASON_BAD_SIGNATURE],
            'tampered amount: MD5 form' => [fn ($v) => $v->verifyForm($tampered), Refused::REASON_BAD_SIGN],
            'tampered amount: both' => [fn ($v) => $v->paid($h, $tampered), Refused::REASON_BAD_SIGNATURE],
            'stale timestamp' => [fn ($v) => $this->verifier($ours, self::NOW + 301)->verifyHeaders($h, $body), Refused::REASON_STALE_TIMESTAMP],
            'timestamp from the future' => [fn ($v) => $this->verifier($ours, self::NOW - 301)->verifyHeaders($h, $body), Refused::REASON_STALE_TIMESTAMP],
            'timestamp not a number' => [fn ($v) => $v->verifyHeaders(['Webhook-Timestamp' => '1e9'] + $h, $body), Refused::REASON_BAD_TIMESTAMP],
            'missing webhook-id' => [fn ($v) => $v->verifyHeaders($without('Webhook-Id'), $body), Refused::REASON_MISSING_HEADER],
            'missing webhook-timestamp' => [fn ($v) => $v->verifyHeaders($without('Webhook-Timestamp'), $body), Refused::REASON_MISSING_HEADER],
            'missing webhook-signature' => [fn ($v) => $v->verifyHeaders($without('Webhook-Signature'), $body), Refused::REASON_MISSING_HEADER],
            'another secret' => [fn ($v) => $this->verifier(self::secret('theirs'))->verifyHeaders($h, $body), Refused::REASON_BAD_SIGNATURE],
            'another webhook-id' => [fn ($v) => $v->verifyHeaders(['Webhook-Id' => 'evt_paid_P2'] + $h, $body), Refused::REASON_BAD_SIGNATURE],
            'v2 entry only' => [fn ($v) => $v->verifyHeaders(['Webhook-Signature' => 'v2,' . substr($h['Webhook-Signature'], 3)] + $h, $body), Refused::REASON_BAD_SIGNATURE],
            'MD5 form without sign' => [fn ($v) => $v->verifyForm(preg_replace('/&sign=[0-9a-f]+/', '', $body)), Refused::REASON_BAD_SIGN],
            'MD5 form, other sign_type' => [fn ($v) => $v->verifyForm(str_replace('sign_type=MD5', 'sign_type=SHA', $body)), Refused::REASON_BAD_SIGN],
            'a signed create replayed as a webhook' => [fn ($v) => $v->verifyForm($create), Refused::REASON_BAD_BODY],
            'a name given twice' => [fn ($v) => $v->verifyForm($body . '&amount=900.00'), Refused::REASON_BAD_BODY],
        ];
        foreach ($cases as $name => [$fn, $reason]) {
            $e = $this->assertThrows(Refused::class, fn () => $fn($this->verifier($ours)), $name);
            $this->assertSame($reason, $e->getReason(), $name . ' (' . $e->getMessage() . ')');
        }
    }

    public function testRefundCallback(): void
    {
        $ours = self::secret('ours');
        $p = ['event' => 'refund', 'paymentId' => 'P1', 'refundId' => 'rf_1', 'amount' => '2.00', 'currency' => 'CNY',
            'refundStatus' => 'succeeded', 'refundedAmount' => '2.00', 'createdAt' => '2026-11-21T22:40:00Z', 'updatedAt' => '2026-11-21T22:40:00Z'];
        $p['sign'] = Signer::sign($p, self::API_KEY);
        $p['sign_type'] = 'MD5';
        $body = http_build_query($p);
        $h = self::headers('evt_refund_rf_1', self::NOW, $body, [$ours]);
        $w = $this->verifier($ours)->callback($h, $body);
        $this->assertTrue($w instanceof \Paygate\Webhook\RefundWebhook, 'a refund webhook');
        $this->assertSame(['rf_1', 'succeeded'], [$w->refundId, $w->refundStatus]);
        $e = $this->assertThrows(Refused::class, fn () => $this->verifier($ours)->paid($h, $body), 'paid() takes no refund');
        $this->assertSame(Refused::REASON_BAD_BODY, $e->getReason());
        [$ph, $pb] = self::paidWebhook([$ours], self::NOW);
        $this->assertTrue($this->verifier($ours)->callback($ph, $pb) instanceof \Paygate\Webhook\PaidWebhook, 'a paid webhook');
    }

    public function testEvent(): void
    {
        $ours = self::secret('endpoint');
        $order = ['paymentId' => 'P1', 'orderId' => 'P1', 'status' => 2, 'status_str' => 'paid', 'amount' => '5.00',
            'currency' => 'USD', 'paymentMethod' => 'wallet_a', 'createdAt' => '2026-11-28T09:00:00Z', 'qrImageUrl' => null,
            'paidWithBalance' => false, 'sandbox' => true];
        $body = json_encode(['id' => 'evt_1', 'type' => 'order.paid', 'created_at' => '2026-11-28T09:00:01Z', 'version' => '2026-11-28', 'data' => $order]);
        $e = $this->verifier($ours)->event(self::headers('evt_1', self::NOW, $body, [$ours]), $body);
        $this->assertSame('order.paid', $e->type);
        $this->assertSame('5.00', $e->order()->amount);
        $this->assertTrue($e->order()->isPaid(), 'order paid');

        $refused = [
            'id is not the webhook-id' => [self::headers('evt_2', self::NOW, $body, [$ours]), $body, Refused::REASON_BAD_BODY],
            'not an envelope' => [self::headers('evt_1', self::NOW, '[1]', [$ours]), '[1]', Refused::REASON_BAD_BODY],
            'tampered data' => [self::headers('evt_1', self::NOW, $body, [$ours]), str_replace('5.00', '9.00', $body), Refused::REASON_BAD_SIGNATURE],
        ];
        foreach ($refused as $name => [$h, $b, $reason]) {
            $x = $this->assertThrows(Refused::class, fn () => $this->verifier($ours)->event($h, $b), $name);
            $this->assertSame($reason, $x->getReason(), $name);
        }
    }
}
