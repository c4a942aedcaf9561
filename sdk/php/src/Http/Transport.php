<?php

declare(strict_types=1);

namespace Paygate\Http;

use Paygate\Exception\TransportException;

/**
 * Sends one request and returns its answer, whatever its status. It
 * throws TransportException only when there is no answer (connection
 * refused, time-out, reset); the client decides about retries.
 */
interface Transport
{
    /** @throws TransportException */
    public function send(Request $request): Response;
}
