"""SPEC.md's signature against every vector of GATEWAY_SDK_SIGN_VECTORS."""

import decimal
import unittest

import paygate
from paygate import signing
from tests.helpers import env_path, load_json


class SignVectors(unittest.TestCase):
    def test_every_vector(self):
        path = env_path("GATEWAY_SDK_SIGN_VECTORS", "schema/testdata/sign-vectors.json")
        if path is None:
            self.skipTest("no sign vectors (GATEWAY_SDK_SIGN_VECTORS)")
        vectors = load_json(path)["vectors"]
        self.assertGreater(len(vectors), 0)
        for v in vectors:
            with self.subTest(v["name"]):
                self.assertEqual(paygate.sign_base(v["params"]), v["base"])
                self.assertEqual(paygate.sign(v["params"], v["key"]), v["sign"])
                signed = dict(v["params"], sign=v["sign"])
                self.assertTrue(signing.verify(signed, v["key"]))
                self.assertFalse(signing.verify(signed, v["key"] + "x"))


class ParamValues(unittest.TestCase):
    def test_values(self):
        cases = [
            ("int", 100, "100"),
            ("decimal keeps its zero", decimal.Decimal("100.50"), "100.50"),
            ("decimal without exponent", decimal.Decimal("1E+2"), "100"),
            ("string as is", "12.3", "12.3"),
            ("none left out", None, None),
        ]
        for name, value, want in cases:
            with self.subTest(name):
                self.assertEqual(signing.param_value(value), want)

    def test_float_refused(self):
        with self.assertRaisesRegex(TypeError, "not float"):
            signing.param_value(0.1)

    def test_nested_refused(self):
        with self.assertRaises(TypeError):
            signing.param_value({"a": 1})

    def test_missing_sign_refused(self):
        self.assertFalse(signing.verify({"a": "1"}, "k"))
        self.assertFalse(signing.verify({"a": "1", "sign": ""}, "k"))


if __name__ == "__main__":
    unittest.main()
