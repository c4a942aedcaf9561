<?php

declare(strict_types=1);

namespace Paygate;

use Paygate\Exception\InvalidArgumentException;
use Paygate\Http\Caller;
use Paygate\Http\CurlTransport;
use Paygate\Http\Psr18Transport;
use Paygate\Http\Transport;
use Paygate\Model\Balance;
use Paygate\Model\CreatedOrder;
use Paygate\Model\Order;
use Paygate\Model\OrderPage;
use Paygate\Model\RefundResult;
use Paygate\Model\TransactionPage;
use Paygate\Webhook\Verifier;

/**
 * The gateway's merchant API. Creates, cancels and refunds are signed with
 * the API key (and sent with an Idempotency-Key, reused on retries); order
 * and balance reads carry the query key. Every error answer is thrown as an
 * ApiException subclass carrying the gateway's error kind and HTTP status.
 */
final class Client
{
    public const VERSION = '0.1.0';

    private readonly Caller $caller;

    public function __construct(private readonly Config $config, ?Transport $transport = null, ?\Closure $sleep = null)
    {
        $transport ??= new CurlTransport($config->timeout, $config->connectTimeout);
        $this->caller = new Caller($config, $transport, $sleep);
    }

    /**
     * A client sending through a PSR-18 client and PSR-17 factories instead
     * of curl (their time-outs apply, not the Config's).
     */
    public static function withPsr18(Config $config, object $httpClient, object $requestFactory, object $streamFactory): self
    {
        return new self($config, new Psr18Transport($httpClient, $requestFactory, $streamFactory));
    }

    /** paygate-php/<version>, sent on every request. */
    public static function userAgent(): string
    {
        return 'paygate-php/' . self::VERSION . ' php/' . PHP_MAJOR_VERSION . '.' . PHP_MINOR_VERSION;
    }

    public function config(): Config
    {
        return $this->config;
    }

    /**
     * POST /api/createorder. $params: amount (string "100.50" or int),
     * currency, paymentMethod and any optional field of SPEC.md
     * (clientOrderId, notify_url, return_url, description, …; ext_* too).
     * appid, action and clientip (from the Config unless given) are added,
     * and the whole is signed exactly as sent.
     */
    public function create(array $params, ?string $idempotencyKey = null): CreatedOrder
    {
        $data = $this->caller->post('/api/createorder', $this->signedCreate($params), $idempotencyKey);
        return CreatedOrder::fromArray(self::object($data));
    }

    /**
     * The signed GET /api/createorder address of the hosted payment page,
     * for a link or a redirect: the same parameters as create(). Refreshing
     * it with a clientOrderId shows the same live order.
     */
    public function hostedUrl(array $params): string
    {
        return $this->config->baseUrl . '/api/createorder?' . http_build_query($this->signedCreate($params), '', '&', PHP_QUERY_RFC3986);
    }

    /** GET /api/order?action=order: one order with its refunds. */
    public function order(string $paymentId): Order
    {
        return Order::fromArray(self::object($this->read('/api/order', ['action' => 'order', 'paymentId' => $paymentId])));
    }

    /**
     * GET /api/order?action=orders: one page, newest first. $filters:
     * status, clientOrderId, from, to (ISO 8601), paymentMethod, currency.
     */
    public function orders(int $page = 1, int $limit = 10, array $filters = []): OrderPage
    {
        $q = ['action' => 'orders', 'page' => $page, 'limit' => $limit] + $filters;
        return OrderPage::fromArray(self::object($this->read('/api/order', $q)));
    }

    /**
     * Every order matching $filters, page after page (at most 50 a page).
     *
     * @return \Generator<int, Order>
     */
    public function eachOrder(array $filters = [], int $limit = 50): \Generator
    {
        for ($page = 1; ; $page++) {
            $p = $this->orders($page, $limit, $filters);
            yield from $p->orders;
            if (!$p->hasMore() || $p->orders === []) {
                return;
            }
        }
    }

    /** POST /api/order/cancel: a pending or ready order becomes cancelled. */
    public function cancel(string $paymentId, ?string $idempotencyKey = null): Order
    {
        $body = $this->signed(['action' => 'cancel', 'paymentId' => $paymentId]);
        return Order::fromArray(self::object($this->caller->post('/api/order/cancel', $body, $idempotencyKey)));
    }

    /**
     * POST /api/order/refund: all or part of a paid order. $options: reason,
     * clientRefundId (the same id again returns that refund, refunding
     * nothing), clientip.
     */
    public function refund(string $paymentId, string|int $amount, array $options = [], ?string $idempotencyKey = null): RefundResult
    {
        $body = $this->signed(['action' => 'refund', 'paymentId' => $paymentId, 'amount' => $amount] + $options);
        return RefundResult::fromArray(self::object($this->caller->post('/api/order/refund', $body, $idempotencyKey)));
    }

    /**
     * GET /api/balance: the merchant's balances, one per currency.
     *
     * @return Balance[]
     */
    public function balance(): array
    {
        $data = $this->read('/api/balance', []);
        return array_map(static fn ($b) => Balance::fromArray(self::object($b)), is_array($data) ? $data : []);
    }

    /** GET /api/balance?action=transactions: $filters cursor, limit, type, from, to. */
    public function transactions(array $filters = []): TransactionPage
    {
        return TransactionPage::fromArray(self::object($this->read('/api/balance', ['action' => 'transactions'] + $filters)));
    }

    /**
     * A verifier of this merchant's webhooks: the MD5 form with the API key
     * and the Standard Webhooks headers with $webhookSecret (whsec_…).
     */
    public function webhooks(string|array $webhookSecret): Verifier
    {
        return new Verifier($webhookSecret, $this->config->apiKey);
    }

    private function read(string $path, array $query): mixed
    {
        if ($this->config->queryKey === '') {
            throw new InvalidArgumentException('queryKey is required to read orders and balances');
        }
        return $this->caller->get($path, ['appid' => $this->config->appId, 'key' => $this->config->queryKey] + $query);
    }

    private function signedCreate(array $params): array
    {
        $params['clientip'] ??= $this->config->clientIp
            ?? throw new InvalidArgumentException('clientip is required on a create: set Config clientIp or give it');
        return $this->signed(['action' => 'createorder'] + $params);
    }

    /** $params with appid, every value as its literal, and sign over exactly those. */
    private function signed(array $params): array
    {
        if ($this->config->apiKey === '') {
            throw new InvalidArgumentException('apiKey is required to sign');
        }
        unset($params['sign'], $params['sign_type']);
        $params['appid'] = $this->config->appId;
        $out = Signer::signed($params);
        $out['sign'] = Signer::sign($out, $this->config->apiKey);
        return $out;
    }

    private static function object(mixed $data): array
    {
        return is_array($data) ? $data : throw new Exception\UnexpectedResponseException(200, null, 'the answer\'s data is not an object');
    }
}
