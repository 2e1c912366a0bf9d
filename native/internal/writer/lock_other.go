//go:build !unix

package writer

import (
	"context"

	"github.com/kontext/kontext/engine/apierr"
)

// Lock is not supported on this platform (no flock).
func (w *Writer) Lock(ctx context.Context) (unlock func(), err error) {
	return nil, apierr.New(apierr.OperationFailed, "the kontext write lock is not supported on this platform")
}
