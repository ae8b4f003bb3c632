# shellcheck shell=bash
# tests/bench/guest_rbdio.sh: the rbdio phase of tests/bench/guest.sh
# (sourced by it after guest_io.sh and guest_rbd.sh, whose helpers it uses:
# io_row, io_facts, IO_ROWS, IO_SIZE, cpu_ticks, osd_ticks). The LU as a disk
# on RBD (issue #35 item 4): the io phase's fio rows on a Ceph cluster in the
# guest (tests/lab/ceph.sh: 1 monitor, 1 memstore OSD, pool rbd, 4 MiB
# objects), every target open at once, each on its own image of
# BENCH_IO_SIZE (256M), written whole first (rbd bench, 4 MiB sequential
# writes); each row runs on every target in turn, then the next row (the
# host's load drifts: a target measured in one stretch carries its load):
#   xcopy-rbd    user:xcopy on the image (xcopy/rbd/rbd/IMAGE@CONF: the
#                plugin's RBD store; librbd cache off, WCE = 0), fio libaio
#                direct on its tcm_loop /dev/sdX
#   handler-rbd  Debian's handler_rbd (user:rbd, rbd/IMAGE;conf=CONF; it sets
#                rbd_cache=false itself, WCE = 0), the same way
#   librbd       no LU: fio's rbd engine (librbd in fio's own process,
#                --thread), with the cache off as the plugin has it
# also (not in the default set): handler-rbd-nocache (handler_rbd given a
# conf that also says rbd cache = false: a control, it should match
# handler-rbd) and librbd-cache (librbd with the client defaults: rbd cache on).
# Both LUs with the LU's defaults (lab_user_create). BENCH_RBDIO_TARGETS
# picks targets. Writes:
#   rbdio.csv      io.csv's columns + gw_ticks (tcmu-runner's user + system
#                  clock ticks over the measured window; for librbd rows fio's
#                  own, which holds librbd) and osd_ticks (the OSD's)
#   rbdio-lus.txt  each LU's settings (as io-lus.txt)
#   io/TARGET-ROW.json fio's own output
RBDIO_TARGETS=${BENCH_RBDIO_TARGETS:-xcopy-rbd handler-rbd librbd}

# rbdio_ticks FIO_PID: "gateway_ticks osd_ticks"; the gateway is tcmu-runner,
# or fio itself for the librbd rows (RBDIO_GW=fio)
rbdio_ticks() {
	local gw=$RBDIO_GW
	[ "$gw" = fio ] && gw=$1
	echo "$(cpu_ticks "$gw") $(osd_ticks)"
}

# rbdio_open TARGET: its image (written whole) and its LU, exported; sets
# RBDIO_DEV[TARGET] (the disk, or rbd:POOL/IMAGE), RBDIO_CONFS[TARGET] (the
# conf its librbd reads) and RBDIO_GWS[TARGET] (tcmu-runner's pid, or fio)
rbdio_open() {
	local t=$1 img=io${1//-/} so='' dev='' conf=$CEPH_CONF gw
	log "rbdio: $t"
	case "$t" in
	xcopy-rbd | handler-rbd | handler-rbd-nocache | librbd | librbd-cache) ;;
	*) log "rbdio: unknown target $t"; return 0 ;;
	esac
	rbd create --size "$((IO_SIZE >> 20))M" "rbd/$img" || { log "rbdio: rbd create failed"; return 0; }
	rbd bench --io-type write --io-size 4M --io-threads 4 --io-total "$IO_SIZE" --io-pattern seq \
		"rbd/$img" >/dev/null 2>&1 || log "rbdio: filling rbd/$img failed"
	case "$t" in *-nocache | librbd) conf=$RBDIO_NOCACHE ;; esac
	gw=$(pidof tcmu-runner | cut -d' ' -f1)
	case "$t" in
	xcopy-rbd) so=$(lab_user_create "$img" xcopy "rbd/rbd/$img@$conf" "$IO_SIZE") ;;
	handler-rbd*) so=$(lab_user_create "$img" rbd "rbd/$img;conf=$conf" "$IO_SIZE") ;;
	*) gw=fio dev=rbd:rbd/$img ;;
	esac
	if [ -n "$so" ]; then
		read -r dev _ <<<"$(lab_loop_export "$so")"
		sg_turs "$dev" >/dev/null 2>&1 || true
		sg_turs "$dev" >/dev/null 2>&1 || true
	elif [ -z "$dev" ]; then
		log "rbdio: $t: the LU did not open"
		return 0
	fi
	io_facts "$t" "$so" "$dev" rbdio-lus.txt
	RBDIO_DEV[$t]=$dev
	RBDIO_CONFS[$t]=$conf
	RBDIO_GWS[$t]=$gw
}

rbdiophase() {
	local t spec
	declare -gA RBDIO_DEV=() RBDIO_CONFS=() RBDIO_GWS=()
	say "RBD as a disk: fio on ${RBDIO_TARGETS// /, }, $((IO_SIZE >> 20)) MiB images"
	mkdir -p "$OUT/io"
	echo "$IO_HEADER,gw_ticks,osd_ticks" >"$OUT/rbdio.csv"
	: >"$OUT/rbdio-lus.txt"
	# shellcheck source=tests/lab/ceph.sh
	. "$HERE/../lab/ceph.sh"
	export CEPH_DIR=$W/ceph CEPH_POOL=rbd CEPH_OSDS=1 CEPH_MEM=$(($(wc -w <<<"$RBDIO_TARGETS") * IO_SIZE + (512 << 20)))
	if ! ceph_start "$CEPH_DIR" 2>"$W/ceph-start.log"; then
		log "rbdio: Ceph did not start: $(tail -3 "$W/ceph-start.log")"
		return 0
	fi
	# the plugin's setting for a librbd client (rbd_image.c turns the cache off)
	RBDIO_NOCACHE=$CEPH_DIR/ceph-nocache.conf
	{ cat "$CEPH_CONF"; printf '[client]\nrbd cache = false\n'; } >"$RBDIO_NOCACHE"
	{
		echo "rbdio_size $IO_SIZE"
		echo "rbdio_ceph $(ceph-osd --version 2>/dev/null | cut -d' ' -f3)"
		echo "rbdio_fio_rbd $(fio --enghelp 2>/dev/null | grep -qw rbd && echo yes || echo no)"
		echo "rbdio_rbd_cache_default $(ceph-conf -c "$CEPH_CONF" --name client.admin \
			--show-config-value rbd_cache 2>/dev/null) policy $(ceph-conf -c "$CEPH_CONF" \
			--name client.admin --show-config-value rbd_cache_policy 2>/dev/null)"
	} >>"$OUT/guest.txt"
	# every target open at once, each row on every target in turn: the host's
	# load drifts over minutes, and a target measured in one stretch would
	# carry the load of its stretch into the ratios
	for t in $RBDIO_TARGETS; do rbdio_open "$t"; done
	for spec in $IO_ROWS; do
		for t in $RBDIO_TARGETS; do
			[ -n "${RBDIO_DEV[$t]:-}" ] || continue
			RBDIO_GW=${RBDIO_GWS[$t]}
			CEPH_CONF=${RBDIO_CONFS[$t]} io_row "$t" "${RBDIO_DEV[$t]}" "$spec" rbdio.csv rbdio_ticks
		done
	done
	lab_teardown >/dev/null
	ceph_stop "$CEPH_DIR"
}
