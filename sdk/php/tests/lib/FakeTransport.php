<?php

declare(strict_types=1);

namespace Paygate\Tests\lib;

use Paygate\Exception\TransportException;
use Paygate\Http\Request;
use Paygate\Http\Response;
use Paygate\Http\Transport;

/**
 * A transport answering from a script: each item a Response to return or a
 * TransportException to throw. It keeps every request it was given.
 */
final class FakeTransport implements Transport
{
    /** @var Request[] */
    public array $requests = [];

    /** @param list<Response|TransportException> $script */
    public function __construct(private array $script)
    {
    }

    public static function ok(mixed $data, int $status = 200): Response
    {
        return new Response($status, ['content-type' => 'application/json'], (string) json_encode(['code' => 0, 'msg' => 'success', 'data' => $data]));
    }

    public static function error(int $status, string $kind, string $msg = 'refused', array $headers = []): Response
    {
        return new Response($status, $headers, (string) json_encode(['code' => $status, 'error' => $kind, 'msg' => $msg]));
    }

    public function send(Request $request): Response
    {
        $this->requests[] = $request;
        $next = array_shift($this->script) ?? throw new \LogicException('the fake transport has no answer left');
        if ($next instanceof TransportException) {
            throw $next;
        }
        return $next;
    }
}
