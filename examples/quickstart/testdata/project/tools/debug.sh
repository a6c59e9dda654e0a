#!/bin/sh
# A scripted debugger: it reads the failed attempts on stdin and, like an
# honest investigator, says it found no root cause it can vouch for.
cat > /dev/null
echo '{"found": false, "five_whys": ["TestRun wants 2.5 and gets 2", "main divides two ints", "the arguments are parsed with strconv.Atoi", "the task never said the CLI takes decimals", "the acceptance test and the objective disagree: a person must decide"]}'
