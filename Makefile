# tileport — build, test, install.
#
#   make            release build in build/release/
#   make check      installs missing packages, ASan+UBSan build, every non-GPU test
#                   (and cuTile Python into build/pyenv once: mk/cutile-py.sh)
#   make demo       installs missing packages, builds, runs the bundled sample
#                   (TILEGYM=DIR: a copy of that TileGym checkout instead)
#   make bench      benchmarks (bench/*.sh), results printed as ratios
#   make fuzz       every fuzz target FUZZ_SECONDS (300) each, corpus kept
#   make install PREFIX=/usr/local DESTDIR=
#   V=1             show the compiler's command lines (one short line per step otherwise)
#
# Libraries are found with pkg-config. engine/ is compiled without the curses
# flags so that an accidental include of curses there fails to build.

VERSION  := 0.1.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/tileport
MODE     ?= release
B        := build/$(MODE)
NPROC    := $(shell nproc 2>/dev/null || echo 2)

CC       ?= cc
CLANG    ?= clang
PKG      ?= pkg-config

ENGINE_PKGS := libgit2 libcjson libcurl
UI_PKGS     := ncursesw
TEST_PKGS   := cmocka

pkg_cflags = $(shell $(PKG) --cflags $(1) 2>/dev/null)
pkg_libs   = $(shell $(PKG) --libs $(1) 2>/dev/null)

# libgit2 and libcurl are loaded on first use, not linked (engine/base/
# libload.h): the library pkg-config finds, by its directory and soname.
LAZY_PKGS  := libgit2 libcurl
LINK_PKGS  := $(filter-out $(LAZY_PKGS),$(ENGINE_PKGS))
pkg_libdir  = $(shell $(PKG) --variable=libdir $(1) 2>/dev/null)
lib_soname  = $(shell readelf -d $(call pkg_libdir,$(1))/$(1).so 2>/dev/null | \
		sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
LAZY_CPPFLAGS := -DTP_LIBGIT2_LIBDIR='"$(call pkg_libdir,libgit2)"' \
		 -DTP_LIBGIT2_SONAME='"$(call lib_soname,libgit2)"' \
		 -DTP_LIBCURL_LIBDIR='"$(call pkg_libdir,libcurl)"' \
		 -DTP_LIBCURL_SONAME='"$(call lib_soname,libcurl)"'

# Plain `make` (and unit, install) on a machine without the libraries: say
# which, and where they come from, before the compiler stops at a header.
# check and demo install them first (make deps), so they are not stopped.
MISSING_PKGS := $(strip $(foreach p,$(ENGINE_PKGS) $(UI_PKGS),\
		  $(if $(shell $(PKG) --exists $(p) 2>/dev/null && echo y),,$(p))))
LIB_GOALS    := all unit install cupti clang-check fuzz-build
ifneq ($(MISSING_PKGS),)
ifneq ($(filter $(LIB_GOALS),$(or $(MAKECMDGOALS),all)),)
$(error the build needs libraries that pkg-config ($(PKG)) does not find: $(MISSING_PKGS). \
'make deps' installs them (as root; otherwise it prints the apt-get line to run), \
and 'make check' and 'make demo' run it first)
endif
endif

WARN     := -Wall -Wextra -Wformat=2 -Wno-missing-field-initializers
CSTD     := -std=c11 -D_GNU_SOURCE
ifeq ($(MODE),check)
  SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  OPT    := -O1 -g $(SAN)
  WERROR := -Werror
  LDSAN  := $(SAN)
else
  OPT    := -O2 -g
  WERROR ?=
  LDSAN  :=
endif

# One short line per step; V=1 shows the commands themselves.
V ?= 0
ifeq ($(V),0)
  Q    := @
  say   = @printf '  %-5s %s\n' $(1) $(2);
else
  Q    :=
  say   =
endif

LIBDIR   ?= $(PREFIX)/lib/tileport
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
BASE_CPPFLAGS := -I. -DTILEPORT_VERSION='"$(VERSION)"' -DTILEPORT_DATADIR='"$(DATADIR)"' \
		 -DTILEPORT_LIBDIR='"$(LIBDIR)"' $(LAZY_CPPFLAGS)
BASE_CFLAGS   := $(CSTD) $(WARN) $(WERROR) $(OPT) -MMD -MP $(CFLAGS)

ENGINE_SRC := $(sort $(wildcard engine/*/*.c))
UI_SRC     := $(sort $(wildcard tui/*.c views/*.c))
CLI_SRC    := $(sort $(wildcard cli/*.c))
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_HELP  := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))

ENGINE_OBJ := $(ENGINE_SRC:%.c=$(B)/obj/%.o)
UI_OBJ     := $(UI_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ    := $(CLI_SRC:%.c=$(B)/obj/%.o)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
UNIT_HOBJ  := $(UNIT_HELP:%.c=$(B)/obj/%.o)

ENGINE_CFLAGS := $(call pkg_cflags,$(ENGINE_PKGS))
UI_CFLAGS     := $(call pkg_cflags,$(ENGINE_PKGS) $(UI_PKGS))
TEST_CFLAGS   := $(call pkg_cflags,$(ENGINE_PKGS) $(UI_PKGS) $(TEST_PKGS))
ALL_LIBS      := $(call pkg_libs,$(UI_PKGS) $(LINK_PKGS)) -lm -pthread
TEST_LIBS     := $(call pkg_libs,$(TEST_PKGS))

# ---- libtileport_cupti.so, the CUPTI injection library of tileport bench ----
# Built only where the CUDA toolkit has CUPTI: a cupti pkg-config file if
# there is one, else CUDA_TOOLKIT_PATH, else /usr/local/cuda. Never with the
# sanitizers: it is loaded into other programs (docs/gpu.md).
CUDA_HOME    := $(firstword $(CUDA_TOOLKIT_PATH) /usr/local/cuda)
CUPTI_CFLAGS := $(call pkg_cflags,cupti)
CUPTI_LIBS   := $(call pkg_libs,cupti)
ifeq ($(strip $(CUPTI_LIBS)),)
  cupti_dir = $(firstword $(foreach d,$(2),$(if $(wildcard $(CUDA_HOME)/$(d)/$(1)),$(CUDA_HOME)/$(d))))
  CUPTI_INC    := $(call cupti_dir,cupti.h,include extras/CUPTI/include targets/x86_64-linux/include targets/sbsa-linux/include)
  CUPTI_LIBDIR := $(call cupti_dir,libcupti.so,lib64 extras/CUPTI/lib64 targets/x86_64-linux/lib targets/sbsa-linux/lib)
  ifneq ($(and $(CUPTI_INC),$(CUPTI_LIBDIR)),)
    CUPTI_CFLAGS := -I$(CUPTI_INC)
    CUPTI_LIBS   := -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti
  endif
endif
CUPTI_SRC := engine/perf/cupti/tileport_cupti.c
CUPTI_SO  := $(if $(strip $(CUPTI_LIBS)),$(B)/libtileport_cupti.so)

.PHONY: all deps deps-check check demo bench install uninstall clean unit fuzz fuzz-build clang-check lint cupti
.DEFAULT_GOAL := all

all: $(B)/tileport $(B)/tileport.bash cupti

# bash completion: the command list from cli/commands.def
$(B)/tileport.bash: mk/completion.bash.in cli/commands.def
	@mkdir -p $(@D)
	$(call say,GEN,$@) sed "s/@COMMANDS@/$$(sed -n 's/^CMD(\([a-z]*\),.*/\1/p' cli/commands.def | tr '\n' ' ' | sed 's/ $$//')/" \
		mk/completion.bash.in >$@

cupti: $(CUPTI_SO)
ifeq ($(CUPTI_SO),)
	@echo "libtileport_cupti.so skipped: no CUPTI under $(CUDA_HOME) (set CUDA_TOOLKIT_PATH)"
endif

$(B)/libtileport_cupti.so: $(CUPTI_SRC) engine/perf/trace_format.h
	@mkdir -p $(@D)
	$(call say,CC,$<) $(CC) $(BASE_CPPFLAGS) $(CSTD) $(WARN) $(WERROR) -O2 -g -fPIC -shared -fvisibility=hidden \
		$(CUPTI_CFLAGS) -o $@ $< -Wl,--no-undefined $(CUPTI_LIBS) -lpthread -ldl

# rm first: objects of deleted sources must not linger in the archive
$(B)/libengine.a: $(ENGINE_OBJ)
	@mkdir -p $(@D)
	$(call say,AR,$@) rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/libui.a: $(UI_OBJ)
	@mkdir -p $(@D)
	$(call say,AR,$@) rm -f $@
	$(Q)$(AR) rcs $@ $^

$(B)/tileport: $(CLI_OBJ) $(B)/libui.a $(B)/libengine.a
	$(call say,LINK,$@) $(CC) $(LDSAN) $(LDFLAGS) -o $@ $(CLI_OBJ) $(B)/libui.a $(B)/libengine.a $(ALL_LIBS)

$(B)/obj/engine/%.o: engine/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<) $(CC) $(BASE_CPPFLAGS) $(BASE_CFLAGS) $(ENGINE_CFLAGS) -c -o $@ $<

$(B)/obj/tui/%.o $(B)/obj/views/%.o $(B)/obj/cli/%.o: XCFLAGS = $(UI_CFLAGS)
$(B)/obj/tests/%.o: XCFLAGS = $(TEST_CFLAGS)
$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<) $(CC) $(BASE_CPPFLAGS) $(BASE_CFLAGS) $(XCFLAGS) -c -o $@ $<

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(UNIT_HOBJ) $(B)/libui.a $(B)/libengine.a
	@mkdir -p $(@D)
	$(call say,LINK,$@) $(CC) $(LDSAN) $(LDFLAGS) -o $@ $< $(UNIT_HOBJ) $(B)/libui.a $(B)/libengine.a $(ALL_LIBS) $(TEST_LIBS)

unit: $(UNIT_BIN)

# ---- fuzz targets (clang + libFuzzer), built beside the sanitizer build ----
FZ         := build/fuzz
FZ_FLAGS   := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FZ_ENGINE  := $(ENGINE_SRC:%.c=$(FZ)/obj/%.o)
FUZZ_BIN   := $(FUZZ_SRC:tests/fuzz/%.c=$(FZ)/%)

$(FZ)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<) $(CLANG) $(BASE_CPPFLAGS) $(CSTD) $(WARN) -Werror -MMD -MP $(FZ_FLAGS) $(ENGINE_CFLAGS) -c -o $@ $<

$(FZ)/fuzz_%: $(FZ)/obj/tests/fuzz/fuzz_%.o $(FZ_ENGINE)
	$(call say,LINK,$@) $(CLANG) -fsanitize=fuzzer,address,undefined -o $@ $^ $(call pkg_libs,$(LINK_PKGS)) -lm -pthread

fuzz-build: $(FUZZ_BIN)

# The long campaign: every target FUZZ_SECONDS (default 300) each, the
# corpus in tests/fuzz/corpus growing (mk/fuzz.sh); `make check` keeps its
# short runs (tests/run.sh).
FUZZ_SECONDS ?= 300
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) mk/fuzz.sh

# ---- clang -Werror pass over every translation unit (gcc builds the binaries) ----
# One stamp per file, remade when the file or a header it includes changes.
CLANG_SRC := $(ENGINE_SRC) $(UI_SRC) $(CLI_SRC) $(UNIT_SRC) $(UNIT_HELP)
CLANG_OK  := $(CLANG_SRC:%.c=build/clang/%.ok)
CLANG_CUPTI_OK := $(if $(CUPTI_SO),$(CUPTI_SRC:%.c=build/clang/cupti/%.ok))

build/clang/%.ok: %.c
	@mkdir -p $(@D)
	$(call say,CLANG,$<) $(CLANG) $(BASE_CPPFLAGS) $(CSTD) $(WARN) -Werror -fsyntax-only -MMD -MP \
		-MF $(@:.ok=.d) -MT $@ $(TEST_CFLAGS) $<
	@touch $@

build/clang/cupti/%.ok: %.c
	@mkdir -p $(@D)
	$(call say,CLANG,$<) $(CLANG) $(BASE_CPPFLAGS) $(CSTD) $(WARN) -Werror -fsyntax-only -MMD -MP \
		-MF $(@:.ok=.d) -MT $@ $(CUPTI_CFLAGS) $<
	@touch $@

clang-check: $(CLANG_OK) $(CLANG_CUPTI_OK)
	@echo "clang-check: ok"

# The layering rules on the #include lines (mk/lint.sh says which).
lint:
	@mk/lint.sh

deps:
	@mk/deps.sh

deps-check:
	@mk/deps.sh check

check: deps-check
	$(MAKE) --no-print-directory MODE=check -j$(NPROC) all unit
	$(MAKE) --no-print-directory -j$(NPROC) fuzz-build
	$(MAKE) --no-print-directory -j$(NPROC) clang-check
	$(MAKE) --no-print-directory lint
	@mk/agent-clis.sh >/dev/null
	@mk/cutile.sh build/check/tileport
	@mk/cutile-py.sh >/dev/null || echo "note: no cuda-tile venv: the tests of tileport refir skip"
	tests/run.sh build/check

# The demo's own output is what matters: the build goes to a log (V=1: to
# the screen), and only its tail comes out if it fails.
demo: deps
	@mkdir -p build
ifeq ($(V),0)
	@echo "building tileport (log: build/demo-build.log; make demo V=1 shows it)"
	@$(MAKE) --no-print-directory -j$(NPROC) all >build/demo-build.log 2>&1 || \
		{ tail -n 30 build/demo-build.log; exit 1; }
else
	$(MAKE) --no-print-directory -j$(NPROC) all
endif
	@TILEGYM="$(TILEGYM)" mk/demo.sh build/release/tileport

# Every bench/*.sh, each given the release binary; a failing one fails make.
bench: all
	@mk/deps.sh bench
	@set -e; for b in bench/*.sh; do echo "== $$b"; "$$b" $(B)/tileport; done

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)
	install -m 755 $(B)/tileport $(DESTDIR)$(BINDIR)/tileport
	if [ -f $(B)/libtileport_cupti.so ]; then \
	  install -d $(DESTDIR)$(LIBDIR) && install -m 755 $(B)/libtileport_cupti.so $(DESTDIR)$(LIBDIR)/; fi
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 docs/tileport.1 $(DESTDIR)$(MANDIR)/man1/tileport.1
	install -m 644 $(B)/tileport.bash $(DESTDIR)$(BASHCOMPDIR)/tileport
	cp -R skill themes rust $(DESTDIR)$(DATADIR)/
	find $(DESTDIR)$(DATADIR) -type d -exec chmod 755 {} + ; find $(DESTDIR)$(DATADIR) -type f ! -name '*.sh' -exec chmod 644 {} +

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tileport $(DESTDIR)$(MANDIR)/man1/tileport.1 $(DESTDIR)$(BASHCOMPDIR)/tileport
	rm -rf $(DESTDIR)$(LIBDIR)
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf build

# Objects reached through a pattern chain (a test's or a fuzz target's own
# object) are intermediate to make, which deletes them after a build: the
# next `make check` would compile and link them all again.
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
