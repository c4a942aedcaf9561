<?php

declare(strict_types=1);

namespace Paygate\Webhook;

use Paygate\Exception\InvalidArgumentException;
use Paygate\Exception\UnexpectedResponseException;
use Paygate\Exception\WebhookVerificationException as Refused;
use Paygate\Signer;

/**
 * Verifies the gateway's webhooks, on the raw body, before anything is
 * parsed or trusted. Two forms:
 *
 *  - Standard Webhooks headers (webhook-id, webhook-timestamp,
 *    webhook-signature): v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed
 *    by the whsec_ secret's decoded bytes; any of the space-separated
 *    signatures may match (a rotation sends two); the timestamp within
 *    $tolerance seconds of now, against replays. Events and the paid
 *    webhook carry them.
 *  - SPEC.md's MD5 sign of the paid webhook's form, with the API key.
 *
 * Every comparison is constant-time. A refusal is a
 * WebhookVerificationException: answer 4xx and act on nothing.
 */
final class Verifier
{
    /** @var string[] HMAC keys, decoded */
    private readonly array $keys;

    /** @var \Closure(): int */
    private readonly \Closure $clock;

    /**
     * @param string|string[] $secrets whsec_… secret(s); more than one while the receiver itself rotates
     * @param string          $apiKey  the API key, for the MD5 form; '' when only headers are verified
     */
    public function __construct(string|array $secrets, private readonly string $apiKey = '', private readonly int $tolerance = 300, ?\Closure $clock = null)
    {
        $keys = [];
        foreach ((array) $secrets as $s) {
            $k = base64_decode(str_starts_with($s, 'whsec_') ? substr($s, 6) : $s, true);
            if ($k === false || $k === '') {
                throw new InvalidArgumentException('a webhook secret is whsec_ followed by base64');
            }
            $keys[] = $k;
        }
        if ($keys === []) {
            throw new InvalidArgumentException('a webhook secret is required');
        }
        $this->keys = $keys;
        $this->clock = $clock ?? static fn (): int => time();
    }

    /**
     * Checks the Standard Webhooks headers against the raw body and returns
     * the webhook id (deduplicate on it).
     *
     * @param array|Headers $headers any framework's headers (see Headers)
     */
    public function verifyHeaders(array|Headers $headers, string $body): string
    {
        $h = $headers instanceof Headers ? $headers : Headers::from($headers);
        $id = self::required($h, 'webhook-id');
        $ts = self::required($h, 'webhook-timestamp');
        $sigs = self::required($h, 'webhook-signature');
        if (!ctype_digit($ts) || strlen($ts) > 12) {
            throw new Refused(Refused::REASON_BAD_TIMESTAMP, 'webhook-timestamp is not unix seconds');
        }
        if (abs(($this->clock)() - (int) $ts) > $this->tolerance) {
            throw new Refused(Refused::REASON_STALE_TIMESTAMP, 'webhook-timestamp is more than ' . $this->tolerance . ' s from now');
        }
        $signed = $id . '.' . $ts . '.' . $body;
        $want = array_map(static fn (string $k): string => base64_encode(hash_hmac('sha256', $signed, $k, true)), $this->keys);
        foreach (preg_split('/\s+/', trim($sigs)) ?: [] as $entry) {
            [$version, $sig] = array_pad(explode(',', $entry, 2), 2, '');
            if ($version !== 'v1') {
                continue;
            }
            foreach ($want as $w) {
                if (hash_equals($w, $sig)) {
                    return $id;
                }
            }
        }
        throw new Refused(Refused::REASON_BAD_SIGNATURE, 'no webhook-signature matches the body');
    }

    /**
     * Checks a webhook form's MD5 sign with the API key; returns the form.
     * A set holding appid or action is refused even when its sign matches:
     * every request the merchant signs holds them and no webhook does, so
     * such a set is a signed request being replayed as a webhook.
     *
     * @param string|array $form the raw body, or the parsed form ($_POST)
     * @return array<string, string>
     */
    public function verifyForm(string|array $form): array
    {
        if ($this->apiKey === '') {
            throw new InvalidArgumentException('the API key is required to verify the MD5 sign');
        }
        $p = is_string($form) ? Form::parse($form) : $form;
        foreach ($p as $name => $value) {
            if (!is_string($value)) {
                throw new Refused(Refused::REASON_BAD_BODY, "webhook parameter $name is not a string");
            }
        }
        if (isset($p['appid']) || isset($p['action'])) {
            throw new Refused(Refused::REASON_BAD_BODY, 'a webhook carries no appid or action: this is a signed request, not a webhook');
        }
        if (($p['sign_type'] ?? 'MD5') !== 'MD5') {
            throw new Refused(Refused::REASON_BAD_SIGN, 'sign_type is not MD5');
        }
        $sign = $p['sign'] ?? '';
        if ($sign === '' || !Signer::verify($p, $this->apiKey, $sign)) {
            throw new Refused(Refused::REASON_BAD_SIGN, 'sign does not match the parameters');
        }
        return $p;
    }

    /**
     * The paid webhook sent to notify_url, verified both ways: its headers
     * with the secret and its form's sign with the API key.
     */
    public function paid(array|Headers $headers, string $body): PaidWebhook
    {
        $w = $this->callback($headers, $body);
        return $w instanceof PaidWebhook ? $w : throw new Refused(Refused::REASON_BAD_BODY, 'not a paid webhook');
    }

    /**
     * What notify_url receives, verified both ways: a PaidWebhook, or a
     * RefundWebhook (event=refund) when a refund of the order ended.
     */
    public function callback(array|Headers $headers, string $body): PaidWebhook|RefundWebhook
    {
        $this->verifyHeaders($headers, $body);
        $p = $this->verifyForm($body);
        $event = $p['event'] ?? null;
        if ($event !== 'refund' && ($event !== null || ($p['status'] ?? '') !== '2')) {
            throw new Refused(Refused::REASON_BAD_BODY, 'neither a paid nor a refund webhook');
        }
        try {
            return $event === 'refund' ? RefundWebhook::fromArray($p) : PaidWebhook::fromArray($p);
        } catch (UnexpectedResponseException $e) {
            throw new Refused(Refused::REASON_BAD_BODY, $e->getMessage());
        }
    }

    /** An event sent to a webhook endpoint: its headers verified, then its envelope parsed. */
    public function event(array|Headers $headers, string $body): Event
    {
        $id = $this->verifyHeaders($headers, $body);
        $e = Event::parse($body);
        if (!hash_equals($id, $e->id)) {
            throw new Refused(Refused::REASON_BAD_BODY, 'the event id is not the webhook-id');
        }
        return $e;
    }

    private static function required(Headers $h, string $name): string
    {
        $v = $h->get($name);
        if ($v === null || trim($v) === '') {
            throw new Refused(Refused::REASON_MISSING_HEADER, "missing $name header");
        }
        return trim($v);
    }
}
