# shellcheck shell=bash
# Host-side helpers shared by tests/lab/run and tests/lab/image.
# Sourced, not executed. Paths derive from this file's location.

# shellcheck disable=SC2034 # used by the scripts that source this file
LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB_TOP=$(cd "$LAB_DIR/../.." && pwd)

lab_log() { printf 'lab: %s\n' "$*" >&2; }
lab_die() { printf 'lab: ERROR: %s\n' "$*" >&2; exit 1; }

# Debian packages the lab needs on the host (the guest runs the host's
# binaries through the 9p root, so the guest needs them too).
# shellcheck disable=SC2034
LAB_HOST_PKGS=(qemu-system-x86 busybox-static cpio kmod tcmu-runner libtcmu2
	libiscsi-bin sg3-utils xfsprogs e2fsprogs qemu-utils coreutils util-linux
	iproute2 fdisk)

# lab_ensure_pkgs PKG... : install the missing ones (as root, idempotent).
lab_ensure_pkgs() {
	local p missing=()
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	lab_log "installing missing packages: ${missing[*]}"
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || lab_die "not root and no sudo: cannot install ${missing[*]}"
		sudo=(sudo -n)
	fi
	export DEBIAN_FRONTEND=noninteractive
	if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
		lab_log "apt-get install failed; running apt-get update and retrying"
		"${sudo[@]}" apt-get update >&2 || lab_die "apt-get update failed"
		"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
			lab_die "cannot install ${missing[*]}"
	fi
}

# Cache outside the git tree, reused between runs.
lab_cache_dir() {
	printf '%s\n' "${LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xcopy-lab}"
}
