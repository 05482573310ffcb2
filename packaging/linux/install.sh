#!/bin/sh
# Install Rilai for this user, from the unpacked tarball (no root, no network):
#
#   ./install.sh                  install or upgrade into ~/.local
#   ./install.sh --prefix DIR     the same under DIR instead of ~/.local
#                                 (sudo ./install.sh --prefix /usr/local: for everyone)
#   ./install.sh --uninstall      remove exactly what it installed; your data stays
#
# Under PREFIX (default ~/.local) it puts:
#   opt/rilai/                            this folder (the app; ./rilai runs it)
#   bin/rilai                             a link to opt/rilai/rilai
#   share/applications/rilai.desktop      the menu entry (Exec= the absolute path)
#   share/icons/hicolor/<N>x<N>/apps/rilai.png, scalable/apps/rilai.svg
# and lists them in opt/rilai/.installed, which --uninstall reads.
#
# An upgrade copies the new folder beside the old one, then swaps the two by renaming
# (a failed copy leaves the old install as it was). As root, it refuses to write into a
# home that is not root's (sudo keeping a person's HOME would leave root-owned files
# there): give --prefix for a system-wide install, or run it as yourself.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
prefix=""
action=install

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix)
            [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }
            prefix=$2
            shift 2
            ;;
        --prefix=*)
            prefix=${1#--prefix=}
            shift
            ;;
        --uninstall) action=uninstall; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option: $1 (see --help)" >&2; exit 2 ;;
    esac
done

if [ -z "$prefix" ]; then
    : "${HOME:?install.sh: HOME is not set}"
    if [ "$(id -u)" = 0 ] && [ "$(stat -c %u "$HOME" 2>/dev/null || echo 0)" != 0 ]; then
        echo "install.sh: running as root with HOME=$HOME, a home that is not root's." >&2
        echo "  Run it as yourself (./install.sh), or for everyone:" >&2
        echo "  sudo ./install.sh --prefix /usr/local   (or install the .deb)" >&2
        exit 1
    fi
    prefix=$HOME/.local
    default_prefix=yes
else
    mkdir -p "$prefix"
    prefix=$(cd "$prefix" && pwd -P)
    default_prefix=no
fi

opt=$prefix/opt
app=$opt/rilai
bin=$prefix/bin
apps=$prefix/share/applications
icons=$prefix/share/icons/hicolor
manifest=$app/.installed

# data_places: where Rilai keeps the person's things (platformdirs' places for "rilai",
# or RILAI_HOME), those that exist
data_places() {
    if [ -n "${RILAI_HOME:-}" ]; then
        set -- "$RILAI_HOME" "everything (RILAI_HOME)"
    else
        set -- "${XDG_DATA_HOME:-$HOME/.local/share}/rilai" "conversations, memory, models" \
            "${XDG_CONFIG_HOME:-$HOME/.config}/rilai" "settings" \
            "${XDG_CACHE_HOME:-$HOME/.cache}/rilai" "cache" \
            "${XDG_STATE_HOME:-$HOME/.local/state}/rilai/log" "logs"
    fi
    found=no
    while [ $# -ge 2 ]; do
        if [ -e "$1" ]; then
            printf '  %-44s %s\n' "$1" "$2"
            found=yes
        fi
        shift 2
    done
    [ "$found" = yes ] || echo "  (none found under ${RILAI_HOME:-$HOME})"
}

# remove_files MANIFEST [KEEP]: remove the files and links MANIFEST lists, but not those
# KEEP (the new install's manifest, in an upgrade) lists too.
remove_files() {
    [ -f "$1" ] || return 0
    while IFS=' ' read -r kind path; do
        case "$kind" in
            file|link)
                if [ -n "${2:-}" ] && grep -qxF "$kind $path" "$2"; then
                    continue
                fi
                rm -f "$path"
                ;;
        esac
    done < "$1"
}

# remove_dirs MANIFEST: the folders it lists (those an install created), deepest first,
# where they are empty
remove_dirs() {
    grep '^dir ' "$1" | sed 's/^dir //' | sort -r | while IFS= read -r dir; do
        rmdir "$dir" 2>/dev/null || true
    done
}

if [ "$action" = uninstall ]; then
    if [ ! -f "$manifest" ]; then
        echo "install.sh: no Rilai installed by install.sh under $prefix (no $manifest)" >&2
        exit 1
    fi
    listed=$(mktemp)
    trap 'rm -f "$listed"' EXIT
    cp "$manifest" "$listed"
    remove_files "$listed"
    rm -rf "$app"
    remove_dirs "$listed"
    echo "Rilai is uninstalled from $prefix."
    echo "Your data is kept, in these folders (delete them yourself to remove it):"
    data_places
    exit 0
fi

# ── install or upgrade ───────────────────────────────────────────────────────
if [ ! -x "$here/rilai" ] || [ ! -d "$here/_internal" ]; then
    echo "install.sh: run it from the unpacked Rilai folder (no rilai executable beside it)" >&2
    exit 1
fi
if [ "$here" = "$app" ]; then
    echo "install.sh: this is the installed copy; to upgrade, run install.sh from a newer" >&2
    echo "  unpacked tarball (to remove it: $app/install.sh --uninstall)" >&2
    exit 1
fi

new_manifest=$(mktemp)
trap 'rm -f "$new_manifest"' EXIT

# make_dir DIR: mkdir -p, listing in the manifest every folder it creates
make_dir() {
    missing=""
    d=$1
    while [ ! -d "$d" ]; do
        missing="$d
$missing"
        d=$(dirname "$d")
    done
    printf '%s' "$missing" | while IFS= read -r m; do
        [ -n "$m" ] || continue
        mkdir "$m"
        echo "dir $m" >> "$new_manifest"
    done
}

# folders an earlier install created stay listed, so --uninstall still removes them
if [ -f "$manifest" ]; then
    grep '^dir ' "$manifest" >> "$new_manifest" || true
fi

make_dir "$opt"
staging=$opt/.rilai.new.$$
trap 'rm -f "$new_manifest"; rm -rf "$staging"' EXIT
cp -R "$here" "$staging"
rm -f "$staging/.installed"

# the menu entry: the checked-in rilai.desktop, with the absolute path to this install
make_dir "$apps"
if [ "$default_prefix" = yes ]; then icon=rilai; else icon=$icons/256x256/apps/rilai.png; fi
case "$app" in
    *' '*) exec_line="Exec=\"$app/rilai\"" ;;
    *) exec_line="Exec=$app/rilai" ;;
esac
sed -e "s|^Exec=.*|$exec_line|" -e "s|^Icon=.*|Icon=$icon|" "$here/rilai.desktop" \
    > "$apps/.rilai.desktop.$$"
mv -f "$apps/.rilai.desktop.$$" "$apps/rilai.desktop"
echo "file $apps/rilai.desktop" >> "$new_manifest"

for png in "$here"/_internal/resources/icons/rilai-*.png "$here"/_internal/resources/icons/rilai.svg; do
    [ -f "$png" ] || continue
    name=$(basename "$png")
    case "$name" in
        rilai.svg) size=scalable; target=rilai.svg ;;
        *) n=${name#rilai-}; n=${n%.png}; size=${n}x$n; target=rilai.png ;;
    esac
    make_dir "$icons/$size/apps"
    cp "$png" "$icons/$size/apps/.$target.$$"
    mv -f "$icons/$size/apps/.$target.$$" "$icons/$size/apps/$target"
    echo "file $icons/$size/apps/$target" >> "$new_manifest"
done

make_dir "$bin"
ln -s "$app/rilai" "$bin/.rilai.$$"
mv -f "$bin/.rilai.$$" "$bin/rilai"
echo "link $bin/rilai" >> "$new_manifest"

# an upgrade: what the old install listed and this one did not write goes
remove_files "$manifest" "$new_manifest"
sort -u "$new_manifest" > "$staging/.installed"

# swap: the old folder aside, the new one in, the old one gone
if [ -e "$app" ]; then
    mv "$app" "$opt/.rilai.old.$$"
    if ! mv "$staging" "$app"; then
        mv "$opt/.rilai.old.$$" "$app"
        echo "install.sh: could not move the new copy into $app; the old one is back" >&2
        exit 1
    fi
    rm -rf "$opt/.rilai.old.$$"
    verb=upgraded
else
    mv "$staging" "$app"
    verb=installed
fi

version=$("$app/rilai" --version 2>/dev/null || echo rilai)
echo "$version $verb:"
echo "  the app        $app"
echo "  the command    $bin/rilai"
echo "  the menu entry $apps/rilai.desktop"
echo "  icons          $icons/*/apps/"
case ":${PATH:-}:" in
    *":$bin:"*) echo "$bin is on your PATH: run \`rilai\` (or find Rilai in the menu)." ;;
    *)
        echo "$bin is NOT on your PATH: run $bin/rilai, or add it to PATH"
        echo "  (e.g. in ~/.profile: PATH=\"$bin:\$PATH\"), then open a new terminal."
        ;;
esac
if [ "$default_prefix" = no ]; then
    echo "The menu entry is found where $prefix/share is in XDG_DATA_DIRS."
fi
if [ "$default_prefix" = yes ]; then
    echo "To remove it: $app/install.sh --uninstall"
else
    echo "To remove it: $app/install.sh --uninstall --prefix $prefix"
fi
echo "This unpacked folder ($here) is no longer needed."
