package admin

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/operator"
	"github.com/paygate/gateway/platform"
)

// reconPath is the Reconciliation page; its POST carries the statement.
const reconPath = "/reconciliation"

// statementUpload bounds the import's request: the statement (the use
// case's own bound) and the form around it.
var statementUpload = int(operator.ReconDefaults().MaxFile) + 1<<20

// reconPages are the providers' statements: every operator reads what each
// channel owes and its last import; the admin imports a statement and
// reads the report.
type reconPages struct {
	screen
	recon *operator.Reconciliation
}

func (c reconPages) register(g fiber.Router) {
	g.Get(reconPath, c.ui.Require(access.PermOpReconRead), c.show)
	g.Post(reconPath, c.ui.Require(access.PermOpReconImport), c.importStatement)
}

// reconData is the page: the receivables, the channels a statement can be
// imported for, and after an import its report and the form as sent.
type reconData struct {
	Rows                  []operator.Receivable
	Channels              []string
	Report                *operator.ReconReport
	Kinds                 []operator.KindCount
	Channel, Day, Account string
}

func (c reconPages) load(ctx *fiber.Ctx) (reconData, error) {
	actor := c.ui.Actor(ctx)
	rows, err := c.recon.Receivables(ctx.UserContext(), actor)
	if err != nil {
		return reconData{}, err
	}
	chans, err := c.recon.Channels(actor)
	if err != nil {
		return reconData{}, err
	}
	return reconData{Rows: rows, Channels: chans}, nil
}

func (c reconPages) show(ctx *fiber.Ctx) error {
	d, err := c.load(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	if len(d.Channels) > 0 {
		d.Channel = d.Channels[0]
	}
	return c.render(ctx, d, fiber.StatusOK, "")
}

// importStatement imports the posted file and shows the report on the
// page; a statement refused (its rows named) is shown on the page too,
// with the form as sent, and nothing is imported.
func (c reconPages) importStatement(ctx *fiber.Ctx) error {
	st := operator.Statement{Channel: form(ctx, "channel"), Day: form(ctx, "day"), Account: form(ctx, "account")}
	fh, err := ctx.FormFile("file")
	if err != nil {
		return c.refused(ctx, st, platform.Errorf(platform.KindInvalidParameter, "choose the statement file"))
	}
	f, err := fh.Open()
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	defer f.Close()
	st.File = f
	rep, err := c.recon.Import(ctx.UserContext(), c.ui.Actor(ctx), st)
	if err != nil {
		return c.refused(ctx, st, err)
	}
	d, err := c.load(ctx)
	if err != nil {
		return c.ui.Fail(ctx, err)
	}
	d.Channel, d.Day, d.Account = st.Channel, st.Day, st.Account
	d.Report = &rep
	d.Kinds = append([]operator.KindCount{{Kind: "matched", N: rep.Matched}}, rep.Counts...)
	return c.render(ctx, d, fiber.StatusOK, "")
}

// refused shows why st was not imported on the page, with the form as
// sent; anything but a 400 is the error page.
func (c reconPages) refused(ctx *fiber.Ctx, st operator.Statement, err error) error {
	var pe *platform.Error
	if !errors.As(err, &pe) || pe.Kind != platform.KindInvalidParameter {
		return c.ui.Fail(ctx, err)
	}
	d, lerr := c.load(ctx)
	if lerr != nil {
		return c.ui.Fail(ctx, lerr)
	}
	d.Channel, d.Day, d.Account = st.Channel, st.Day, st.Account
	return c.render(ctx, d, fiber.StatusBadRequest, pe.Msg)
}

func (c reconPages) render(ctx *fiber.Ctx, d reconData, status int, problem string) error {
	v := c.ui.View(ctx, "title_recon")
	v.Data, v.Status, v.Problem = d, status, problem
	return c.ui.Render(ctx, "recon", v)
}
