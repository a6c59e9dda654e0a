#!/bin/sh
# A scripted reviewer: reads the review request on stdin and judges the tree.
# A Divide that returns an error but never checks for zero is Critical.
cat > /dev/null
if [ -f calc/divide.go ] && grep -q 'error' calc/divide.go && ! grep -q 'b == 0' calc/divide.go; then
	echo '{"findings": [{"severity": "critical", "file": "calc/divide.go", "line": 5, "message": "Divide returns an error but never rejects a zero divisor"}]}'
else
	echo '{"findings": [{"severity": "low", "file": "calc/add.go", "line": 3, "message": "say in the doc comment that Add does not check for overflow"}]}'
fi
