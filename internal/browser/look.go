package browser

// Look is how a page looks at its viewport's width: its screenshots, the
// axe-core audit and the layout checks, which a test runs together at each
// width once the steps have brought the page to the state to look at.
type Look struct{ p *Page }

// Look is the page's look at its current width.
func (p *Page) Look() Look { return Look{p} }

// Width is the viewport's width in CSS pixels (and screenshot pixels).
func (l Look) Width() int { return l.p.width }
