#!/bin/bash
# demo.sh - boot the testbed and run jobs/quickstart.fio through the engine against the
# Linux kernel NVMe/RDMA target; print fio's result.  (make demo runs make deps and make first.)
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO" || exit 1
mkdir -p build
cat > build/demo-guest.sh <<'GUEST'
#!/bin/bash
cd "$(dirname "$0")/.." || exit 1
echo "=== fio jobs/quickstart.fio against $NQN at $TARGET_IP:$TARGET_PORT (Soft-RoCE, kernel nvmet_rdma)"
TRADDR=$TARGET_IP SUBNQN=$NQN fio jobs/quickstart.fio
GUEST
chmod +x build/demo-guest.sh
exec tests/testbed/testbed.sh --ns-mb 128 -- build/demo-guest.sh
