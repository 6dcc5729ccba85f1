# Sourced by the bench scripts that start child JVMs with options of their own (a JFR recording,
# GC logs) on top of the shipped ones: conf/delayq.yml is the one source of those, so the scripts
# read them there instead of keeping copies that go stale.
#   jvm_default scheduler|worker   prints that role's `jvm:` options from conf/delayq.yml
jvm_default() {
  sed -n "/^jvm:/,/^[^ #]/s/^  $1: \"\\(.*\\)\"\$/\\1/p" "$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/conf/delayq.yml"
}
