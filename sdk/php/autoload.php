<?php

// For projects without Composer: require this file and the Paygate\
// classes load from src/ (PSR-4). With Composer, vendor/autoload.php does it.

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Paygate\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 8)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
