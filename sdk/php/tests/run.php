<?php

// The SDK's test runner: php tests/run.php [filter]. Runs every public
// test* method of every tests/*Test.php class; the live tests run against a
// gateway when GATEWAY_SDK_BASE_URL is set (make test-sdk) and skip
// otherwise. Exits 1 when any test fails.

declare(strict_types=1);

error_reporting(E_ALL);
set_error_handler(static function (int $no, string $msg, string $file, int $line): bool {
    if ((error_reporting() & $no) === 0) {
        return false; // silenced with @
    }
    throw new ErrorException($msg, 0, $no, $file, $line);
});

require dirname(__DIR__) . '/autoload.php';
spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Paygate\\Tests\\')) {
        $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, strlen('Paygate\\Tests\\'))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
require __DIR__ . '/lib/TestCase.php';

use Paygate\Tests\lib\Failure;
use Paygate\Tests\lib\Skipped;

$filter = $argv[1] ?? '';
$counts = ['ok' => 0, 'skip' => 0, 'FAIL' => 0];
$files = glob(__DIR__ . '/*Test.php') ?: [];
sort($files);
foreach ($files as $file) {
    $class = 'Paygate\\Tests\\' . basename($file, '.php');
    foreach ((new ReflectionClass($class))->getMethods(ReflectionMethod::IS_PUBLIC) as $m) {
        $name = basename($file, '.php') . '::' . $m->getName();
        if (!str_starts_with($m->getName(), 'test') || ($filter !== '' && !str_contains($name, $filter))) {
            continue;
        }
        $started = microtime(true);
        try {
            $m->invoke(new $class());
            $status = 'ok';
            $note = '';
        } catch (Skipped $e) {
            [$status, $note] = ['skip', $e->getMessage()];
        } catch (Failure $e) {
            [$status, $note] = ['FAIL', $e->getMessage() . ' (' . basename($e->getFile()) . ':' . $e->getLine() . ')'];
        } catch (Throwable $e) {
            [$status, $note] = ['FAIL', $e::class . ': ' . $e->getMessage() . "\n" . $e->getTraceAsString()];
        }
        $counts[$status]++;
        printf("%-4s %s (%.2fs)%s\n", $status, $name, microtime(true) - $started, $note === '' ? '' : "\n     " . $note);
    }
}
printf("\n%d passed, %d skipped, %d failed\n", $counts['ok'], $counts['skip'], $counts['FAIL']);
exit($counts['FAIL'] > 0 || $counts['ok'] === 0 ? 1 : 0);
