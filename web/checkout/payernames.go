package checkout

import "github.com/paygate/gateway/schema"

// PayerNames are the method names payers read, by language then method
// code: the deployment's names (n, may be nil) over the catalogue's
// neutral words. The consoles show a method by these, so a merchant reads
// what their payers chose ("Alipay"), not a code ("wallet_a").
func PayerNames(n MethodNames) (map[string]map[string]string, error) {
	cats, err := catalogs()
	if err != nil {
		return nil, err
	}
	withNames(cats, n)
	out := map[string]map[string]string{}
	for lang, c := range cats {
		out[lang] = map[string]string{}
		for _, m := range schema.AllMethods() {
			out[lang][string(m)] = c.Method(m)
		}
	}
	return out, nil
}
