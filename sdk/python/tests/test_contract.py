"""The SDK's declared types against GATEWAY_SDK_OPENAPI, and its sources
against Python 3.9's grammar: neither may drift."""

import ast
import dataclasses
import os
import typing
import unittest

import paygate
from paygate import client, types
from tests.helpers import HERE, env_path, load_json

RESPONSE_TYPES = [types.Order, types.CreatedOrder, types.OrderPage, types.Refund, types.RefundResult,
                  types.Balance, types.PaidWebhook]


def is_optional(tp):
    return type(None) in typing.get_args(tp)


class OpenAPI(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        path = env_path("GATEWAY_SDK_OPENAPI", "web/api/apidoc/openapi.json")
        if path is None:
            raise unittest.SkipTest("no OpenAPI document (GATEWAY_SDK_OPENAPI)")
        cls.schemas = load_json(path)["components"]["schemas"]
        cls.doc = load_json(path)

    def test_response_types_match_their_schemas(self):
        for cls in RESPONSE_TYPES:
            with self.subTest(cls.__name__):
                schema = self.schemas[cls.OPENAPI_SCHEMA]
                props, required = schema["properties"], set(schema.get("required", []))
                hints = typing.get_type_hints(cls)
                declared = {}
                for f in dataclasses.fields(cls):
                    declared[types.json_name(f)] = f
                # Every field the SDK declares is in the document.
                self.assertEqual(sorted(set(declared) - set(props)), [], "declared but not in the schema")
                # The SDK reads every field the document has.
                self.assertEqual(sorted(set(props) - set(declared)), [], "in the schema but not declared")
                for name, f in declared.items():
                    has_default = f.default is not dataclasses.MISSING
                    if name in required:
                        self.assertFalse(has_default, "%s is required: no default" % name)
                    else:
                        self.assertTrue(has_default and is_optional(hints[f.name]),
                                        "%s is optional: Optional with a default" % name)

    def test_nullable_required_fields_are_optional(self):
        for cls in RESPONSE_TYPES:
            props = self.schemas[cls.OPENAPI_SCHEMA]["properties"]
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                t = props[types.json_name(f)].get("type")
                if isinstance(t, list) and "null" in t:
                    with self.subTest(cls.__name__ + "." + f.name):
                        self.assertTrue(is_optional(hints[f.name]))

    def test_create_parameters_exist(self):
        props = self.schemas["CreateOrderRequest"]["properties"]
        sent = set(client._CREATE_OPTIONAL.values()) | set(typing.get_type_hints(types.CreateParams))
        sent |= {"appid", "clientip", "action", "amount", "currency", "paymentMethod", "sign", "sign_type"}
        self.assertEqual(sorted(sent - set(props)), [])
        c = paygate.Client("http://127.0.0.1:9", "1001", "k", clientip="127.0.0.1")
        p = c.create_params("1", "CNY", "wallet_a", **{k: "x" for k in client._CREATE_OPTIONAL})
        self.assertEqual(sorted(set(p) - set(props)), [])
        self.assertEqual(sorted(set(self.schemas["CreateOrderRequest"]["required"]) - set(p)), [])

    def test_signed_requests_have_their_schemas_fields(self):
        c = paygate.Client("http://127.0.0.1:9", "1001", "k", clientip="127.0.0.1")
        cases = [
            ("CancelRequest", c._signed({"appid": "1", "action": "cancel", "paymentId": "p"})),
            ("RefundRequest", c._signed({"appid": "1", "action": "refund", "paymentId": "p", "amount": "1",
                                         "reason": "r", "clientRefundId": "c"})),
        ]
        for name, sent in cases:
            with self.subTest(name):
                schema = self.schemas[name]
                self.assertEqual(sorted(set(sent) - set(schema["properties"])), [])
                self.assertEqual(sorted(set(schema["required"]) - set(sent)), [])

    def test_error_kinds_documented(self):
        kinds = set(self.schemas["ErrorKind"]["enum"])
        for k in ("invalid_sign", "order_not_found", "rate_limited", "refund_exceeds_paid", "clientip_mismatch"):
            self.assertIn(k, kinds)

    def test_webhook_headers_documented(self):
        names = {p["name"] for p in self.doc["webhooks"]["paid"]["post"]["parameters"]}
        self.assertEqual(names, {paygate.webhooks.HEADER_ID, paygate.webhooks.HEADER_TIMESTAMP,
                                 paygate.webhooks.HEADER_SIGNATURE})
        env = self.doc["webhooks"]["order.paid"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        declared = {types.json_name(f) for f in dataclasses.fields(types.Event)}
        self.assertEqual(declared, set(env["properties"]))


class Python39(unittest.TestCase):
    def test_sources_parse_as_python_39(self):
        root = os.path.dirname(HERE)
        for sub in ("src/paygate", "tests"):
            for name in sorted(os.listdir(os.path.join(root, sub))):
                if name.endswith(".py"):
                    path = os.path.join(root, sub, name)
                    with self.subTest(path):
                        with open(path, encoding="utf-8") as f:
                            ast.parse(f.read(), path, feature_version=(3, 9))

    def test_py_typed_marker(self):
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(paygate.__file__), "py.typed")))


if __name__ == "__main__":
    unittest.main()
