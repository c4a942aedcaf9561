<?php

declare(strict_types=1);

namespace Paygate\Http;

use Paygate\Exception\TransportException;

/**
 * The default transport, on ext-curl: time-outs on the connection and the
 * whole request, http and https only, redirects not followed (an answer
 * that moves is the caller's to see, never a signed body resent elsewhere).
 */
final class CurlTransport implements Transport
{
    public function __construct(private readonly float $timeout = 30.0, private readonly float $connectTimeout = 10.0)
    {
    }

    public function send(Request $request): Response
    {
        $ch = curl_init();
        if ($ch === false) {
            throw new TransportException('curl_init failed');
        }
        $headers = [];
        try {
            curl_setopt_array($ch, $this->options($request, $headers));
            $body = curl_exec($ch);
            if ($body === false) {
                throw new TransportException(sprintf('%s %s: %s', $request->method, self::redact($request->url), curl_error($ch)));
            }
            return new Response((int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE), $headers, (string) $body);
        } finally {
            curl_close($ch);
        }
    }

    /** @param array<string, string> $headers filled with the answer's headers */
    private function options(Request $request, array &$headers): array
    {
        $lines = [];
        foreach ($request->headers as $name => $value) {
            $lines[] = $name . ': ' . $value;
        }
        $lines[] = 'Expect:'; // no 100-continue round trip
        $opts = [
            CURLOPT_URL => $request->url,
            CURLOPT_CUSTOMREQUEST => $request->method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_TIMEOUT_MS => (int) ceil($this->timeout * 1000),
            CURLOPT_CONNECTTIMEOUT_MS => (int) ceil($this->connectTimeout * 1000),
            CURLOPT_HEADERFUNCTION => static function ($ch, string $line) use (&$headers): int {
                $parts = explode(':', $line, 2);
                if (count($parts) === 2) {
                    $headers[strtolower(trim($parts[0]))] = trim($parts[1]);
                }
                return strlen($line);
            },
        ];
        if ($request->body !== null) {
            $opts[CURLOPT_POSTFIELDS] = $request->body;
        }
        return $opts;
    }

    /** The URL without its query, which may hold the query key. */
    public static function redact(string $url): string
    {
        $q = strpos($url, '?');
        return $q === false ? $url : substr($url, 0, $q) . '?…';
    }
}
