<?php

declare(strict_types=1);

namespace Paygate\Webhook;

use Paygate\Exception\UnexpectedResponseException;
use Paygate\Exception\WebhookVerificationException as Refused;
use Paygate\Model\Model;
use Paygate\Model\Order;
use Paygate\Model\Refund;
use Paygate\Model\Wire;

/**
 * An event sent to a webhook endpoint (docs/events.md): its id (the
 * webhook-id header, the same on every attempt: deduplicate on it), its
 * catalogue type, when it happened, the catalogue version and its data,
 * the object as the API answers it.
 */
final class Event extends Model
{
    public readonly string $id;
    /** order.paid, order.expired, order.refunded, payout.paid, … */
    public readonly string $type;
    #[Wire('created_at')]
    public readonly \DateTimeImmutable $createdAt;
    public readonly string $version;
    public readonly array $data;

    /** The envelope of a body already verified (Verifier::event does both). */
    public static function parse(string $body): self
    {
        $json = json_decode($body, true);
        if (!is_array($json) || array_is_list($json) || !is_array($json['data'] ?? null)) {
            throw new Refused(Refused::REASON_BAD_BODY, 'event body is not an {id,type,created_at,version,data} object');
        }
        try {
            return self::fromArray($json);
        } catch (UnexpectedResponseException $e) {
            throw new Refused(Refused::REASON_BAD_BODY, 'event body: ' . $e->getMessage());
        }
    }

    /** data as an Order: the order.* and usdt.* types. */
    public function order(): Order
    {
        return Order::fromArray(isset($this->data['refund']) ? (array) ($this->data['order'] ?? []) : $this->data);
    }

    /** data's refund: order.refunded and refund.failed. */
    public function refund(): Refund
    {
        return Refund::fromArray((array) ($this->data['refund'] ?? []));
    }
}
