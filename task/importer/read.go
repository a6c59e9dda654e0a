package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// readFile reads the file name of fsys, refusing one larger than
// [task.MaxPlanSize] after reading at most one byte more.
func readFile(fsys fs.FS, name string, display func(string) string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fileError(display(name), err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > task.MaxPlanSize {
		return nil, tooLarge(display(name), strconv.FormatInt(st.Size(), 10)+" bytes")
	}
	// A pipe, or a file that grows, is cut short.
	data, err := io.ReadAll(io.LimitReader(f, task.MaxPlanSize+1))
	if err != nil {
		return nil, fileError(display(name), err)
	}
	if len(data) > task.MaxPlanSize {
		return nil, tooLarge(display(name), "more than "+strconv.Itoa(task.MaxPlanSize)+" bytes")
	}
	return data, nil
}

func tooLarge(name, size string) error {
	return errorf(name, pos{}, "", "the file is %s, over the limit of %d bytes (%d MiB)",
		size, task.MaxPlanSize, task.MaxPlanSize>>20)
}

// fileError reports a file that could not be read (not one that is malformed).
func fileError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("importer: %s: %w", quote.Cut(name, maxName), err)
}
