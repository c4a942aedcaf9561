<?php

declare(strict_types=1);

namespace Paygate\Tests;

use Paygate\Client;
use Paygate\Config;
use Paygate\Model;
use Paygate\Tests\lib\FakeTransport;
use Paygate\Tests\lib\TestCase;
use Paygate\Webhook;

/**
 * The SDK's declarations against the gateway's OpenAPI document
 * (GATEWAY_SDK_OPENAPI; the repository's copy when unset): every model
 * field exists in its schema with a compatible type, optional exactly when
 * the schema does not require it, and every schema property is declared;
 * every parameter the client sends is one the operation takes, and the
 * required ones are sent. So the document, the binary and the SDK cannot
 * drift apart unnoticed.
 */
final class OpenApiTest extends TestCase
{
    private const MODELS = [
        Model\Order::class => '#/components/schemas/Order',
        Model\CreatedOrder::class => '#/components/schemas/CreateOrderData',
        Model\OrderPage::class => '#/components/schemas/OrderPage',
        Model\Refund::class => '#/components/schemas/Refund',
        Model\RefundResult::class => '#/components/schemas/RefundData',
        Model\Balance::class => '#/components/schemas/Balance',
        Model\Transaction::class => '#/components/schemas/Transaction',
        Model\TransactionPage::class => '#/components/schemas/TransactionPage',
        Webhook\PaidWebhook::class => '#/components/schemas/PaidWebhook',
        Webhook\RefundWebhook::class => '#/components/schemas/RefundWebhook',
        Webhook\Event::class => '#/webhooks/order.paid/post/requestBody/content/application~1json/schema',
    ];

    private array $doc = [];

    private function doc(): array
    {
        if ($this->doc === []) {
            $path = self::env('GATEWAY_SDK_OPENAPI') ?? dirname(__DIR__, 3) . '/web/api/apidoc/openapi.json';
            if (!is_file($path)) {
                $this->skip('no OpenAPI document: set GATEWAY_SDK_OPENAPI');
            }
            $this->doc = json_decode((string) file_get_contents($path), true, 512, JSON_THROW_ON_ERROR);
        }
        return $this->doc;
    }

    /** The object at a JSON pointer, its own $ref followed. */
    private function at(string $ref): array
    {
        $node = $this->doc();
        foreach (explode('/', substr($ref, 2)) as $part) {
            $node = $node[str_replace(['~1', '~0'], ['/', '~'], $part)] ?? $this->fail("OpenAPI has no $ref");
        }
        return isset($node['$ref']) ? $this->at($node['$ref']) : $node;
    }

    /** The JSON types a schema allows: its type(s), through $ref, oneOf and const. */
    private function types(array $s): array
    {
        if (isset($s['$ref'])) {
            return $this->types($this->at($s['$ref']));
        }
        if (isset($s['oneOf'])) {
            return array_merge(...array_map(fn ($x) => $this->types($x), $s['oneOf']));
        }
        if (array_key_exists('const', $s)) {
            return [get_debug_type($s['const']) === 'int' ? 'integer' : 'string'];
        }
        if (isset($s['enum'])) {
            return array_values(array_unique(array_map(static fn ($v) => is_int($v) ? 'integer' : 'string', $s['enum'])));
        }
        return (array) ($s['type'] ?? []);
    }

    public function testModelsMatchTheirSchemas(): void
    {
        $phpToJson = ['string' => 'string', 'int' => 'integer', 'bool' => 'boolean', \DateTimeImmutable::class => 'string', 'array' => 'array|object'];
        foreach (self::MODELS as $class => $ref) {
            $schema = $this->at($ref);
            $props = $schema['properties'] ?? [];
            $required = $schema['required'] ?? [];
            $declared = [];
            foreach ($class::fields() as $prop => [$wire, $optional, $rp]) {
                $where = "$class::\$$prop ($wire)";
                $declared[] = $wire;
                $this->assertTrue(isset($props[$wire]), "$where: not in $ref");
                $this->assertSame(!in_array($wire, $required, true), $optional, "$where: #[Optional] must say the schema does not require it");
                $type = $rp->getType();
                $want = explode('|', $phpToJson[$type->getName()] ?? $this->fail("$where: type {$type->getName()}"));
                $types = $this->types($props[$wire]);
                $this->assertTrue(array_intersect($want, $types) !== [] || ($types === [] && $type->getName() === 'array'), "$where: PHP {$type->getName()} for schema types " . implode(',', $types));
                if (!$optional) {
                    $this->assertSame(in_array('null', $types, true), $type->allowsNull(), "$where: nullable exactly when the schema allows null");
                }
                if (($props[$wire]['format'] ?? $this->at($props[$wire]['$ref'] ?? $ref)['format'] ?? null) === 'date-time') {
                    $this->assertSame(\DateTimeImmutable::class, $type->getName(), "$where: a date-time");
                }
            }
            $missing = array_diff(array_keys($props), $declared);
            $this->assertSame([], array_values($missing), "$class: schema properties the SDK does not declare");
        }
    }

    /** What the client sends, captured, against each operation's parameters. */
    public function testRequestsMatchTheirOperations(): void
    {
        $doc = $this->doc();
        $created = ClientTest::created();
        $order = ['paymentId' => 'P1', 'orderId' => 'P1', 'status' => 4, 'status_str' => 'cancelled', 'amount' => '1.00', 'currency' => 'CNY',
            'paymentMethod' => 'wallet_a', 'createdAt' => '2026-01-02T03:04:05Z', 'qrImageUrl' => null, 'paidWithBalance' => false, 'sandbox' => true];
        $refund = ['refundId' => 'rf_1', 'paymentId' => 'P1', 'amount' => '1.00', 'currency' => 'CNY', 'status' => 'succeeded',
            'createdAt' => '2026-01-02T03:04:05Z', 'updatedAt' => '2026-01-02T03:04:05Z', 'refundedAmount' => '1.00', 'idempotent' => false];
        $t = new FakeTransport([FakeTransport::ok($created), FakeTransport::ok($order), FakeTransport::ok($refund),
            FakeTransport::ok($order), FakeTransport::ok(['page' => 1, 'limit' => 10, 'total' => 0, 'orders' => []]),
            FakeTransport::ok([]), FakeTransport::ok(['transactions' => []])]);
        $c = new Client(new Config('https://pay.example', '1001', 'k', 'q', '203.0.113.7'), $t);
        $c->create(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']);
        $c->cancel('P1');
        $c->refund('P1', '1.00', ['reason' => 'r', 'clientRefundId' => 'R-1']);
        $c->order('P1');
        $c->orders(1, 10, ['status' => 'paid', 'clientOrderId' => 'A', 'from' => '2026-01-01T00:00:00Z', 'to' => '2026-02-01T00:00:00Z', 'paymentMethod' => 'wallet_a', 'currency' => 'CNY']);
        $c->balance();
        $c->transactions(['limit' => 10, 'cursor' => 'x', 'type' => 'payment', 'from' => '2026-01-01T00:00:00Z', 'to' => '2026-02-01T00:00:00Z']);
        $hosted = $c->hostedUrl(['amount' => '1', 'currency' => 'CNY', 'paymentMethod' => 'wallet_a']);

        foreach ($t->requests as $r) {
            $path = (string) parse_url($r->url, PHP_URL_PATH);
            $op = $doc['paths'][$path][strtolower($r->method)] ?? $this->fail("{$r->method} $path is not in the document");
            if ($r->method === 'POST') {
                $schema = $this->at($op['requestBody']['content']['application/json']['schema']['$ref']);
                $sent = json_decode((string) $r->body, true);
                $this->assertSame([], array_values(array_diff(array_keys($sent), array_keys($schema['properties']))), "$path: sent names the schema lacks");
                $this->assertSame([], array_values(array_diff($schema['required'], array_keys($sent))), "$path: required names not sent");
                $this->assertTrue(isset($op['parameters']) && in_array('#/components/parameters/IdempotencyKey', array_column($op['parameters'], '$ref'), true), "$path: takes Idempotency-Key");
                continue;
            }
            $this->assertQuery($r->url, $op, $path);
        }
        $this->assertQuery($hosted, $doc['paths']['/api/createorder']['get'], 'GET /api/createorder');
    }

    private function assertQuery(string $url, array $op, string $what): void
    {
        parse_str((string) parse_url($url, PHP_URL_QUERY), $q);
        $names = array_column(array_filter($op['parameters'], static fn ($p) => ($p['in'] ?? '') === 'query'), 'name');
        $required = array_column(array_filter($op['parameters'], static fn ($p) => ($p['in'] ?? '') === 'query' && ($p['required'] ?? false)), 'name');
        if (str_contains($what, 'createorder')) {
            // The hosted create takes every POST body name (the document lists the required ones).
            $names = array_merge($names, array_keys($this->at('#/components/schemas/CreateOrderRequest')['properties']));
        }
        $this->assertSame([], array_values(array_diff(array_keys($q), $names)), "$what: sent names the operation lacks");
        $this->assertSame([], array_values(array_diff($required, array_keys($q))), "$what: required names not sent");
    }
}
