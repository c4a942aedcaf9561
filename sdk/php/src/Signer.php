<?php

declare(strict_types=1);

namespace Paygate;

use Paygate\Exception\InvalidArgumentException;

/**
 * The gateway's MD5 signature (SPEC.md "Signature"): every parameter but
 * sign and sign_type, nulls left out and empty strings kept, sorted by name
 * in byte order, joined as name=value with & and no URL encoding, the API
 * key appended, MD5 in lower-case hex. Requests and the paid webhook's form
 * are signed the same way.
 */
final class Signer
{
    /** The string that is hashed, before the key is appended. */
    public static function base(array $params): string
    {
        $pairs = [];
        foreach (self::signed($params) as $name => $value) {
            $pairs[] = $name . '=' . $value;
        }
        return implode('&', $pairs);
    }

    /** The sign of $params with the API key $key. */
    public static function sign(array $params, string $key): string
    {
        return md5(self::base($params) . $key);
    }

    /**
     * Whether $sign is the sign of $params under $key, compared in constant
     * time so that a receiver's answer times leak nothing of the right sign.
     */
    public static function verify(array $params, string $key, string $sign): bool
    {
        return hash_equals(self::sign($params, $key), strtolower($sign));
    }

    /**
     * The parameters that are signed, as strings, sorted by name. A value
     * that is not a scalar (an array, an object) is refused: the set is
     * flat, and a value must be signed exactly as it is sent.
     *
     * @return array<string, string>
     */
    public static function signed(array $params): array
    {
        $out = [];
        foreach ($params as $name => $value) {
            $name = (string) $name;
            if ($name === 'sign' || $name === 'sign_type' || $value === null) {
                continue;
            }
            $out[$name] = self::literal($name, $value);
        }
        // Byte order: SPEC.md sorts names as bytes (upper case first).
        uksort($out, static fn (string|int $a, string|int $b): int => strcmp((string) $a, (string) $b));
        return $out;
    }

    /** The text a parameter value is signed and sent as. */
    public static function literal(string $name, mixed $value): string
    {
        return match (true) {
            is_string($value) => $value,
            is_int($value) => (string) $value,
            is_bool($value) => $value ? 'true' : 'false',
            is_float($value) => throw new InvalidArgumentException(
                "parameter $name is a float: give amounts as strings (\"100.50\") or integers, so they are signed exactly as sent"
            ),
            default => throw new InvalidArgumentException("parameter $name must be a string, an integer or a boolean"),
        };
    }
}
