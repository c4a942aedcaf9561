<?php

declare(strict_types=1);

namespace Paygate\Tests\lib;

/** Thrown by an assertion that does not hold. */
final class Failure extends \Exception
{
}

/** Thrown by skip(): the test does not apply here. */
final class Skipped extends \Exception
{
}

/**
 * The base of the SDK's tests: every public method named test* runs on a
 * fresh instance; a few assertions, no framework (the SDK has no
 * dependency, its tests neither).
 */
abstract class TestCase
{
    protected function skip(string $why): never
    {
        throw new Skipped($why);
    }

    protected function fail(string $msg): never
    {
        throw new Failure($msg);
    }

    protected function assertTrue(bool $cond, string $msg): void
    {
        if (!$cond) {
            $this->fail($msg);
        }
    }

    protected function assertSame(mixed $want, mixed $got, string $msg = ''): void
    {
        if ($want !== $got) {
            $this->fail(($msg !== '' ? "$msg: " : '') . 'want ' . self::show($want) . ', got ' . self::show($got));
        }
    }

    /**
     * Runs $fn and returns what it threw, failing unless it is a $class.
     *
     * @template T of \Throwable
     * @param class-string<T> $class
     * @return T
     */
    protected function assertThrows(string $class, callable $fn, string $msg = ''): \Throwable
    {
        try {
            $fn();
        } catch (\Throwable $e) {
            if ($e instanceof $class) {
                return $e;
            }
            $this->fail(($msg !== '' ? "$msg: " : '') . "want $class, got " . $e::class . ': ' . $e->getMessage());
        }
        $this->fail(($msg !== '' ? "$msg: " : '') . "want $class, nothing was thrown");
    }

    /** An environment variable, or null when unset or empty. */
    protected static function env(string $name): ?string
    {
        $v = getenv($name);
        return $v === false || $v === '' ? null : $v;
    }

    public static function show(mixed $v): string
    {
        return is_string($v) ? '"' . $v . '"' : (string) json_encode($v, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    }
}
