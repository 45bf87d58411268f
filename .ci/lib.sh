# Helpers sourced by the .ci scripts (not run on its own).

# Prints the path of a Python that has pip. On a machine without one, as root with apt-get (a fresh CI
# machine), installs Debian's python3-pip first. Returns 1 when no pip can be had.
pip_python() {
  local py
  for py in python3 python; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -m pip --version >/dev/null 2>&1; then
      command -v "$py"
      return 0
    fi
  done
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "no python with pip: installing python3-pip with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >&2 || return 1
    if python3 -m pip --version >/dev/null 2>&1; then
      command -v python3
      return 0
    fi
  fi
  return 1
}
