<?php

declare(strict_types=1);

namespace Paygate\Webhook;

use Paygate\Exception\WebhookVerificationException as Refused;

/**
 * The paid (and refund) webhook's application/x-www-form-urlencoded body as
 * name => value. Parsed here rather than by parse_str, which turns names
 * with [ ] into arrays and keeps the last of two equal names: a name given
 * twice is refused, since the signed set would be ambiguous.
 */
final class Form
{
    /** @return array<string, string> */
    public static function parse(string $body): array
    {
        $out = [];
        foreach ($body === '' ? [] : explode('&', $body) as $pair) {
            if ($pair === '') {
                continue;
            }
            [$name, $value] = array_pad(explode('=', $pair, 2), 2, '');
            $name = urldecode($name);
            if (array_key_exists($name, $out)) {
                throw new Refused(Refused::REASON_BAD_BODY, "webhook body gives $name twice");
            }
            $out[$name] = urldecode($value);
        }
        return $out;
    }
}
