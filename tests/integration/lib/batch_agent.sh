#!/bin/sh
# The scripted agent of the batch tests: operator OP answers from its own
# scenario, $BATCH_SCEN/OP, in fake_agent.sh's format, plus two words:
#   STAGE: HANG            never answers (the stage's timeout ends it)
#   STAGE: GATE VERDICT..  first says it is here ($BATCH_SCEN/OP.entered, its pid),
#                          then waits for the test to let it go
#                          ($BATCH_SCEN/OP.release), then answers VERDICT..
set -u
scen=$BATCH_SCEN/$TILEPORT_OP
line=$(sed -n "${TILEPORT_SEQ}p" "$scen")
case $line in
*": HANG"*)
	while :; do sleep 1; done ;;
*": GATE "*)
	echo $$ >"$scen.entered"
	while [ ! -e "$scen.release" ]; do sleep 0.05; done ;;
esac
sed 's/: GATE /: /' "$scen" >"$TILEPORT_ATTEMPT_DIR/scenario"
FAKE_SCENARIO=$TILEPORT_ATTEMPT_DIR/scenario exec "$TILEPORT_TOP/tests/integration/lib/fake_agent.sh"
