<?php

declare(strict_types=1);

namespace Paygate\Webhook;

/**
 * The webhook-* headers read from whatever a framework hands over: a plain
 * name => value map in any letter case, PSR-7's and Symfony's name =>
 * list of values, or PHP's $_SERVER (HTTP_WEBHOOK_ID, …).
 */
final class Headers
{
    /** @param array<string, string> $values lower-case names */
    private function __construct(private readonly array $values)
    {
    }

    public static function from(array $headers): self
    {
        $out = [];
        foreach ($headers as $name => $value) {
            $name = strtolower(str_replace('_', '-', (string) $name));
            if (str_starts_with($name, 'http-')) {
                $name = substr($name, 5);
            }
            if (is_array($value)) {
                $value = implode(', ', array_map('strval', $value));
            }
            if (is_string($value)) {
                $out[$name] = $value;
            }
        }
        return new self($out);
    }

    /** The headers of the request PHP is serving. */
    public static function fromGlobals(): self
    {
        $h = [];
        foreach ($_SERVER as $k => $v) {
            if (is_string($k) && str_starts_with($k, 'HTTP_WEBHOOK_')) {
                $h[$k] = $v;
            }
        }
        return self::from($h);
    }

    public function get(string $name): ?string
    {
        return $this->values[strtolower($name)] ?? null;
    }
}
