#!/bin/sh
# signal_safety_check.sh: ANDWEORC_SIGNAL_SAFE, checked. Every object given
# holds code that signal handlers reach (samplers, the raw writer, progress
# points, descriptor guards, exec/_exit/signal wrappers); none may reference
# a symbol that is not async-signal-safe: allocation, C++ exceptions, stdio,
# pthread mutexes/condvars, dlsym, strerror, or __tls_get_addr (general-
# dynamic TLS, which may allocate on a thread's first access).
# Usage: signal_safety_check.sh NM EXCLUDE_REGEX OBJECT...
# (objects whose name matches EXCLUDE_REGEX are not handler-reachable).
nm=$1
exclude=$2
shift 2
deny='^(malloc|calloc|realloc|free|posix_memalign|aligned_alloc|_Znw.*|_Zna.*|_Zdl.*|_Zda.*|__cxa_allocate_exception|__cxa_throw|v?[fs]?n?printf|__.*printf_chk|puts|fputs|fopen|fclose|fwrite|fread|fflush|fgets|pthread_mutex_.*|pthread_cond_.*|dlv?sym|dlopen|syslog|strerror|localtime|gmtime|__tls_get_addr)(@.*)?$'
status=0
checked=0
for obj in "$@"; do
  if basename "$obj" | grep -Eq "$exclude"; then continue; fi
  checked=$((checked + 1))
  syms=$("$nm" -u "$obj") || { echo "cannot read $obj"; exit 1; }
  bad=$(echo "$syms" | awk '{print $2}' | grep -E "$deny")
  if [ -n "$bad" ]; then
    echo "$(basename "$obj") references unsafe symbols:" $bad
    status=1
  fi
done
[ $status -eq 0 ] && echo "checked $checked objects: no unsafe symbol"
[ $checked -gt 10 ] || { echo "too few objects checked ($checked)"; exit 1; }
exit $status
