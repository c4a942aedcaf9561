<?php

declare(strict_types=1);

namespace Paygate\Http;

use Paygate\Exception\InvalidArgumentException;
use Paygate\Exception\TransportException;

/**
 * Sends through any PSR-18 client (Guzzle, Symfony HttpClient's Psr18Client,
 * …) with a PSR-17 request factory and stream factory, without this package
 * depending on the PSR interfaces: the objects are checked for the methods
 * the standards define. The client's own time-outs apply. Its exceptions
 * that implement Psr\Http\Client\ClientExceptionInterface (no answer) become
 * TransportException; others are not caught.
 */
final class Psr18Transport implements Transport
{
    private const CLIENT_EXCEPTION = 'Psr\Http\Client\ClientExceptionInterface';

    public function __construct(
        private readonly object $client,
        private readonly object $requestFactory,
        private readonly object $streamFactory,
    ) {
        foreach ([[$client, 'sendRequest'], [$requestFactory, 'createRequest'], [$streamFactory, 'createStream']] as [$o, $m]) {
            if (!method_exists($o, $m)) {
                throw new InvalidArgumentException(sprintf('%s has no %s(): not a PSR-18 client or PSR-17 factory', $o::class, $m));
            }
        }
    }

    public function send(Request $request): Response
    {
        $psr = $this->requestFactory->createRequest($request->method, $request->url);
        foreach ($request->headers as $name => $value) {
            $psr = $psr->withHeader($name, $value);
        }
        if ($request->body !== null) {
            $psr = $psr->withBody($this->streamFactory->createStream($request->body));
        }
        try {
            $answer = $this->client->sendRequest($psr);
        } catch (\Throwable $e) {
            if (is_a($e, self::CLIENT_EXCEPTION)) {
                throw new TransportException(sprintf('%s %s: %s', $request->method, CurlTransport::redact($request->url), $e->getMessage()), null, $e);
            }
            throw $e;
        }
        $headers = [];
        foreach ($answer->getHeaders() as $name => $values) {
            $headers[strtolower((string) $name)] = implode(', ', (array) $values);
        }
        return new Response($answer->getStatusCode(), $headers, (string) $answer->getBody());
    }
}
