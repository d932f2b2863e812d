package gmlab

// AccessProperty is what the L2 cache does with accesses under a window; the
// values are gm_access_property's in gmlab.h.
type AccessProperty int

const (
	AccessNormal     AccessProperty = 0
	AccessStreaming  AccessProperty = 1
	AccessPersisting AccessProperty = 2
)

// The L2 persisting-access controls need compute capability 8.0 or later;
// below that they fail with StatusNotSupported.

// SetL2PersistingSize sets aside up to bytes of L2 for persisting lines and
// returns the size granted (at most the device's persisting maximum). The
// set-aside belongs to the device, not to the context: it stays after Close.
func (c *Context) SetL2PersistingSize(bytes int64) (int64, error) {
	return call(c, func() int64 { return c.ptr().SetL2PersistingSize(bytes) })
}

// SetL2Window puts an access policy window over [offset, offset+numBytes) of
// buf on this context's stream: everything run on the context afterwards sees
// hitProperty for a hitRatio (0..1) share of the accesses in the window, and
// missProperty (AccessNormal or AccessStreaming) for the rest.
func (c *Context) SetL2Window(buf *Buffer, offset, numBytes int64, hitRatio float64, hitProperty, missProperty AccessProperty) error {
	if err := checkOperands(operand{"buf", buf}); err != nil {
		return err
	}
	return do([]any{c, buf}, func() {
		c.ptr().SetL2Window(buf.ptr(), offset, numBytes, hitRatio, int(hitProperty), int(missProperty))
	})
}

// ResetL2Window removes the window and returns persisting lines to normal.
func (c *Context) ResetL2Window() error {
	return do(c, c.ptr().ResetL2Window)
}

// L2StateJSON reports the set-aside and the window that CUDA has in force, as
// JSON ("window" is null when there is none).
func (c *Context) L2StateJSON() (string, error) {
	return call(c, c.ptr().L2StateJson)
}
