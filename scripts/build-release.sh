# SPDX-License-Identifier: Apache-2.0
# Sourced by install.sh, package-deb.sh and bench.sh: the one release build
# everyone uses. Every tool has the Swift runtime linked in
# (--static-swift-stdlib: nothing from the toolchain at run time, and idle
# toastd is 6 MiB smaller, docs/BENCHMARKS.md section 4); toastctl is
# its front (Embedded Swift, 35 KB, linked with the C library alone: it
# sends the plain form of `add` and runs toastctl-full for the rest), and
# toastctl-full a fully static executable (it starts in a third of the
# time). The binaries are stripped into $STAGE_BIN, their debug
# information kept apart in $STAGE_DEBUG/TOOL.debug (linked by
# .gnu_debuglink, as Debian's -dbgsym packages do).
#
# Sets STAGE_BIN and STAGE_DEBUG; TOASTD_BIN, TOASTCTL_BIN and OVERLAY_BIN
# (the staged tools the benchmarks run); and RELEASE_BIN, the default build
# (toast-bench, and a toastd linked the default way for section 4's row).
RELEASE_TOOLS=(toastd toast-tail toast-notify toast-overlay)

# The flags of every release build of tool $1 (RELEASE_FLAGS):
#
# - Linked by lld with its functions in the order of scripts/TOOL.order
#   (written by scripts/order-hot-code.sh): toastd's (shared by toast-tail
#   and toast-notify) lists every function a plain add runs (those before
#   its answer first), then those only other requests run, then start-up's;
#   toastctl's, every function its commands run; toast-overlay's, every
#   function its cards run, then start-up's. An add or a card then
#   touches a few hundred KiB of contiguous code instead of pages spread
#   over the whole binary, which matters most after a rest, when every
#   page's first touch is dear (docs/BENCHMARKS.md, "At rest"). That
#   needs each function in a section of its own, and the functions LLVM
#   leaves without a symbol placed by toastd-private-code.ld. (The
#   toolchain's Swift libraries keep most of their code in one section
#   each, which moves as a whole.)
# - Concrete generic types' metadata made by their accessors, with the
#   conformances they need passed in, rather than from a mangled name that
#   the runtime demangles and whose requirements it checks by scanning every
#   conformance record of the binary (4,589 in toastd): a start of toastd
#   to its first reply ran 16.0M instructions, 6.4M of them in those scans,
#   and runs 11.6M with this and --no-export-dynamic below
#   (docs/BENCHMARKS.md, "Start-up without the runtime's searches").
#
# DYNAMIC_LINK adds what the dynamically linked tools take: their relative
# relocations packed (DT_RELR, glibc 2.36: 100,000 of them took 2.3 MB of
# toastd and were read at every start), and no symbol of theirs exported
# (the toolchain's static-stdlib link exports all 13,000 of toastd's: 1.2
# MB of tables, and each library's lookups at start went through them).
release_flags() {
    RELEASE_FLAGS=(
        -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld
        -Xlinker "--symbol-ordering-file=$PWD/scripts/$1.order" -Xlinker --no-warn-symbol-ordering
        -Xlinker "--script=$PWD/scripts/toastd-private-code.ld"
        -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
    )
}
DYNAMIC_LINK=(-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic)

# LOCAL_LIBRARIES, for every dynamically linked tool: the tool's own
# directory kept out of its library search (SwiftPM's RUNPATH of $ORIGIN).
# With it, each start looked for every library in 19 places under that
# directory before the system's (toastctl's front made 79 system calls to
# send an add, 38 of them failed lookups; 40 without), and a library of
# that name put beside a copy of the tool would have been loaded. The
# Swift libraries are linked in: nothing of the tools' is found there.
LOCAL_LIBRARIES=(--disable-local-rpath)
DYNAMIC_LINK+=("${LOCAL_LIBRARIES[@]}")

# HUGE_CODE, toastd's alone: its segments aligned to 2 MiB in the file and in
# memory (the kernel then loads it at a 2 MiB boundary), so that the first
# two 2 MiB blocks of its code, where the order puts every function a
# request runs and toastd-private-code.ld starts them on a 2 MiB boundary,
# can be mapped as two huge pages (`HugeCodePages`). A page touched for the
# first time after a rest costs this kind of machine 2 to 8 µs, a 2 MiB
# block about as much as a few of them (docs/BENCHMARKS.md, "Huge pages
# for the hot code"). It costs toastd's file up to 2 MiB of padding; the
# other tools keep 4 KiB alignment, where the boundary costs only address
# space.
HUGE_CODE=(-Xlinker -z -Xlinker max-page-size=0x200000)

# Sets STATIC_CXX: the flags that link the C++ standard library from its
# archive into a tool instead of loading libstdc++.so. The Swift runtime and
# toml++ need it, and as a shared library its 3,300 symbol relocations were
# 40% of the dynamic loader's work at every start (a start of toastd to its
# first reply ran 11.6M instructions, 1.9M fewer with this, and took 1.0 to
# 2.2 ms less: docs/BENCHMARKS.md, "The C++ library linked in"). The linker
# looks for -lstdc++ in each directory in turn, the shared library before
# the archive, so a directory holding only the archive, searched first,
# decides it; it is the archive of the GCC the toolchain's clang links
# with. Only the tools that load no C++ library of their own take it: two
# copies of libstdc++ in one process are what GCC advises against, and
# toast-overlay's gdk-pixbuf loaders for SVG and TIFF load the shared one.
# Empty, with a note, where no archive is installed.
static_cxx() {
    local archive directory="$PWD/.build-c++-archive"
    archive="$("$(dirname "$(command -v swift)")/clang" -print-file-name=libstdc++.a 2>/dev/null || true)"
    STATIC_CXX=()
    if [ ! -f "$archive" ]; then
        echo "build-release: no libstdc++.a; the tools load libstdc++.so (install libstdc++-dev for a faster start)" >&2
        return
    fi
    mkdir -p "$directory"
    ln -sfn "$archive" "$directory/libstdc++.a"
    STATIC_CXX=(-Xlinker "-L$directory")
}

# The products in RELEASE_TOOLS that load a C++ library of their own.
shares_cxx() { [ "$1" = toast-overlay ]; }

# The order tool $1 is linked with: its own (toastctl, toast-overlay), or
# toastd's, which toast-tail and toast-notify share.
order_of() {
    if [ -f "scripts/$1.order" ]; then echo "$1"; else echo toastd; fi
}

# Removes $2 when $1.order or the linker script is newer: SwiftPM does not
# know them, so a new order would otherwise not be linked.
relink_if_reordered() {
    if [ "scripts/$1.order" -nt "$2" ] || [ scripts/toastd-private-code.ld -nt "$2" ]; then rm -f "$2"; fi
}

# Empties the scratch path $1 when it was built with other flags than the
# rest of the arguments: SwiftPM recompiles and relinks nothing when only
# flags change, so objects built without function sections would stay and
# the order would silently not apply to them.
same_flags() {
    local scratch="$1"
    shift
    local stamp="$scratch/toastd-build-flags"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" != "$*" ]; then rm -rf "$scratch"; fi
    mkdir -p "$scratch"
    printf '%s' "$*" >"$stamp"
}

build_release() {
    quiet_build -c release "$@"
    RELEASE_BIN="$(swift build -c release --show-bin-path | tail -n 1)"
    local product
    release_flags toastd
    static_cxx
    same_flags .build-static-stdlib "${RELEASE_FLAGS[@]}" "${DYNAMIC_LINK[@]}" "${STATIC_CXX[@]}"
    for product in "${RELEASE_TOOLS[@]}"; do
        # Only the link differs: the objects are the same for every tool.
        local order
        order="$(order_of "$product")"
        release_flags "$order"
        relink_if_reordered "$order" ".build-static-stdlib/release/$product"
        local cxx=("${STATIC_CXX[@]}") huge=()
        if shares_cxx "$product"; then cxx=(); fi
        if [ "$product" = toastd ]; then huge=("${HUGE_CODE[@]}"); fi
        quiet_build -c release --scratch-path .build-static-stdlib --product "$product" --static-swift-stdlib \
            "${RELEASE_FLAGS[@]}" "${DYNAMIC_LINK[@]}" "${cxx[@]}" "${huge[@]}"
    done
    local static_stdlib static
    static_stdlib="$(swift build -c release --scratch-path .build-static-stdlib --show-bin-path | tail -n 1)"
    # The linker warns that getpwuid_r and friends want the same glibc at run
    # time; toastctl calls none of them.
    release_flags toastctl
    same_flags .build-static "${RELEASE_FLAGS[@]}"
    relink_if_reordered toastctl .build-static/release/toastctl-full
    quiet_build -c release --scratch-path .build-static --product toastctl-full -Xswiftc -static-executable "${RELEASE_FLAGS[@]}"
    static="$(swift build -c release --scratch-path .build-static --show-bin-path | tail -n 1)"
    # toastctl's front: Embedded Swift, built the default way (it links only the C library).
    quiet_build -c release --product toastctl "${LOCAL_LIBRARIES[@]}"
    STAGE_BIN="$PWD/.build-stage/bin"
    STAGE_DEBUG="$PWD/.build-stage/debug"
    mkdir -p "$STAGE_BIN" "$STAGE_DEBUG"
    for product in "${RELEASE_TOOLS[@]}" toastctl toastctl-full; do
        local built="$static_stdlib/$product"
        [ "$product" = toastctl ] && built="$RELEASE_BIN/$product"
        [ "$product" = toastctl-full ] && built="$static/$product"
        stage_binary "$built" "$product"
        # A toolchain that adds a search path of its own would undo LOCAL_LIBRARIES.
        if readelf -dW "$STAGE_BIN/$product" | grep -qE '\((RUNPATH|RPATH)\)'; then
            echo "build-release: $product looks for libraries in a directory of its own" >&2
            return 1
        fi
    done
    # The linker's search order decides the C++ library; a toolchain that
    # names libstdc++.so by its path would undo it without a word.
    if [ "${#STATIC_CXX[@]}" -gt 0 ]; then
        for product in "${RELEASE_TOOLS[@]}"; do
            if ! shares_cxx "$product" && readelf -dW "$STAGE_BIN/$product" | grep -q 'NEEDED.*libstdc++'; then
                echo "build-release: $product still loads libstdc++.so" >&2
                return 1
            fi
        done
    fi
    TOASTD_BIN="$STAGE_BIN/toastd"
    TOASTCTL_BIN="$STAGE_BIN/toastctl"
    OVERLAY_BIN="$STAGE_BIN/toast-overlay"
    [ -x "$RELEASE_BIN/toastd" ] && [ -x "$TOASTD_BIN" ] && [ -x "$TOASTCTL_BIN" ] && [ -x "$STAGE_BIN/toastctl-full" ] && [ -x "$OVERLAY_BIN" ]
}

# A stripped copy of $1 as $STAGE_BIN/$2, its debug information in $STAGE_DEBUG/$2.debug.
stage_binary() {
    objcopy --only-keep-debug "$1" "$STAGE_DEBUG/$2.debug"
    chmod 644 "$STAGE_DEBUG/$2.debug"
    strip --strip-all -o "$STAGE_BIN/$2.new" "$1"
    objcopy --add-gnu-debuglink="$STAGE_DEBUG/$2.debug" "$STAGE_BIN/$2.new"
    chmod 755 "$STAGE_BIN/$2.new"
    mv "$STAGE_BIN/$2.new" "$STAGE_BIN/$2"
}

# `swift build "$@"`, showing only what matters (errors, warnings); fails
# when the build fails, with its whole log on stderr.
quiet_build() {
    local log status=0
    log="$(mktemp)"
    swift build "$@" >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$log" >&2
        rm -f "$log"
        echo "the build failed (swift build $*)" >&2
        return "$status"
    fi
    # What is left (warnings) goes to stderr: a caller's stdout is its own.
    grep -Ev '^\[|^Building|^Compiling|^Write|^Planning|statically linked|getpw|getgr|dlopen|mktemp|^Build (of product .*)?complete|^(Fetching|Fetched|Cloning|Cloned|Computing|Computed|Creating working copy|Working copy of|Updating|Updated) ' "$log" >&2 || true
    rm -f "$log"
}
