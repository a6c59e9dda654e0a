package proc

// EnvRun is the variable that marks the processes of one run, for
// [KillStrays]. A host sets EnvRun=<run id> in its own environment before it
// starts any child (os.Setenv, or the program that starts the host sets it
// for the host alone): every process of the run's tree inherits it, and the
// mark outlives the host. Set it nowhere else: KillStrays kills whatever
// carries it, except the caller's own family.
const EnvRun = "HARNISH_RUN"
