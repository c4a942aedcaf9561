<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Exception\UnexpectedResponseException;

/**
 * An answer's object as typed, read-only properties. Each property is one
 * wire field (#[Wire] when the names differ, #[Optional] when the answer
 * may leave it out); the SDK's tests check these declarations against the
 * gateway's OpenAPI document, so the two cannot drift. Fields the SDK does
 * not know yet stay readable in $raw.
 */
abstract class Model
{
    /** The object exactly as decoded from the answer. */
    public readonly array $raw;

    final protected function __construct()
    {
    }

    /** @return static */
    public static function fromArray(array $data): static
    {
        $values = [];
        foreach (static::fields() as $prop => [$wire, $optional, $rp]) {
            if (!array_key_exists($wire, $data) || ($data[$wire] === null && $optional)) {
                if (!$optional) {
                    throw new UnexpectedResponseException(200, null, sprintf('%s: the answer has no %s', static::class, $wire));
                }
                $values[$prop] = null;
                continue;
            }
            $values[$prop] = self::convert($rp, $data[$wire]);
        }
        $o = new static();
        $o->raw = $data;
        // A read-only property is set from its declaring class's scope.
        (\Closure::bind(static function (Model $o, array $v): void {
            foreach ($v as $k => $x) {
                $o->$k = $x;
            }
        }, null, static::class))($o, $values);
        return $o;
    }

    /**
     * The wire fields: property name => [wire name, optional, reflection].
     *
     * @return array<string, array{0: string, 1: bool, 2: \ReflectionProperty}>
     */
    public static function fields(): array
    {
        static $cache = [];
        if (isset($cache[static::class])) {
            return $cache[static::class];
        }
        $out = [];
        foreach ((new \ReflectionClass(static::class))->getProperties(\ReflectionProperty::IS_PUBLIC) as $p) {
            if ($p->isStatic() || $p->getName() === 'raw') {
                continue;
            }
            $wire = $p->getAttributes(Wire::class)[0] ?? null;
            $out[$p->getName()] = [
                $wire ? $wire->newInstance()->name : $p->getName(),
                $p->getAttributes(Optional::class) !== [],
                $p,
            ];
        }
        return $cache[static::class] = $out;
    }

    private static function convert(\ReflectionProperty $p, mixed $v): mixed
    {
        $type = $p->getType();
        $name = $type instanceof \ReflectionNamedType ? $type->getName() : 'mixed';
        $bad = static fn () => new UnexpectedResponseException(200, null, sprintf('%s::$%s: the answer\'s value is not %s', $p->getDeclaringClass()->getName(), $p->getName(), $name));
        if ($v === null) {
            if ($type !== null && !$type->allowsNull()) {
                throw $bad();
            }
            return null;
        }
        switch ($name) {
            case 'string':
                return is_string($v) ? $v : throw $bad();
            case 'int':
                return is_int($v) ? $v : throw $bad();
            case 'bool':
                return is_bool($v) ? $v : throw $bad();
            case \DateTimeImmutable::class:
                try {
                    return is_string($v) ? new \DateTimeImmutable($v) : throw $bad();
                } catch (\Exception) {
                    throw $bad();
                }
            case 'array':
                if (!is_array($v)) {
                    throw $bad();
                }
                $list = $p->getAttributes(ListOf::class)[0] ?? null;
                if ($list === null) {
                    return $v;
                }
                $class = $list->newInstance()->class;
                return array_map(static fn ($item) => is_array($item) ? $class::fromArray($item) : throw $bad(), $v);
            default:
                if (is_subclass_of($name, Model::class)) {
                    return is_array($v) ? $name::fromArray($v) : throw $bad();
                }
                return $v;
        }
    }
}
