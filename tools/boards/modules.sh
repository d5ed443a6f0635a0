# Sourced by tools/boards/run.sh and together.sh: the kernel modules a .ko needs, from its own
# modinfo "depends=" (no depmod on this machine), printed dependencies first, each once.
# modclose MODULES_DIR NAME prints paths relative to MODULES_DIR; a module named with '-' or
# '_' is found either way, as modprobe finds it.
modpath() { find "$1" -name "$2.ko" -print -quit; }
declare -A seen
modclose() {
	local mods=$1 name=$2 f deps d
	[ -z "${seen[$name]:-}" ] || return 0
	seen[$name]=1
	f=$(modpath "$mods" "$name")
	[ -n "$f" ] || f=$(modpath "$mods" "${name//_/-}")
	[ -n "$f" ] || f=$(modpath "$mods" "${name//-/_}")
	[ -n "$f" ] || { echo "$(basename "$0"): no module $name in $mods" >&2; return 1; }
	deps=$(strings "$f" | sed -n 's/^depends=//p' | head -1)
	for d in ${deps//,/ }; do modclose "$mods" "$d"; done
	echo "${f#"$mods"/}"
}
