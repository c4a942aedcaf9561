package schema

// EndpointRequestKey remembers a signed webhook-endpoint change's
// requestId of appid for longer than its timestamp window, so the same
// signed change is not made twice.
func EndpointRequestKey(appid, requestID string) string {
	return "gw:" + HomeShard(appid).Tag() + ":wh:ep:req:" + appid + ":" + requestID
}
