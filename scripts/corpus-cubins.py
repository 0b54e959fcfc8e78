#!/usr/bin/env python3
"""Compiles the planted-bug corpus to cubins, for running under compute-sanitizer.

    scripts/corpus-cubins.py [--out DIR] [--chip sm_90a] [FILE.mlir ...]

The corpus (test/Harness/*.mlir, the default input) holds small kernels split
by `// -----`, each after a `// Bug: ...` or `// Twin: ...` comment. AMK's
static checker proves the bugs; this script builds the GPU side of the proof:
every split that carries a SANITIZE directive is compiled, with stock upstream
MLIR (mlir-opt) and ptxas, NOT with amk-opt (AMK refuses to emit an unverified
kernel, and here the buggy ones are wanted), to a cubin that
runtime/tools/amk-launch/amk-launch.cu launches and scripts/gpu-corpus.sh
runs under compute-sanitizer on a GPU machine.

The directive
-------------
A comment line anywhere in the case's split (the text between `// -----`
lines); by convention it replaces the blank line just above the `// Bug:` /
`// Twin:` comment, so that no line of the file moves (some expected
diagnostics name absolute line numbers):

    // -----
    // SANITIZE: tool=memcheck grid=4 block=256 smem=0 args=f32[1000]
    // Bug: off by one: the guard lets index n through (ule instead of ult).
    gpu.module @m { ...

whitespace-separated key=value fields, in any order:

  tool=T[,T2] memcheck | racecheck | synccheck | initcheck | run (required);
              a list gives one run per tool with the same launch; `run`
              launches without a sanitizer (for bugs a tool cannot see that
              show as a hang)
  grid=X[,Y[,Z]]   blocks (default known_grid_size, else 1); must equal
              known_grid_size if the kernel has it
  block=X[,Y[,Z]]  threads per block; defaults to known_block_size, and must
              equal it when both are given
  smem=B      dynamic shared memory in bytes; defaults to the kernel's
              amk.dynamic_smem_bytes (else 0), and must equal it if given
  args=A,B,.. one entry per kernel argument, in order, comma-separated, no
              spaces (`args=` alone, or no args field, for none):
                f32[1000]   a memref: element type (f32 f64 f16 bf16 i8 i16
                f32[64x130] i32 i64 index) and concrete sizes (dims joined
                            by 'x'; static dims must match the type). A fresh
                            cudaMalloc of exactly that many bytes, filled
                            with a pattern (floats i % 251 * 0.5, f16/bf16
                            1.0, integers i % 5), passed as a contiguous
                            row-major descriptor with offset 0.
                i32[8]@zero a global memref filled with zeros instead (a
                            counter: the launch zeroes `amk.counter`
                            arguments)
                f32[256]@smem or f32[256]@smem+64
                            a workgroup (shared) memref argument: a view of
                            the launch's dynamic shared memory at that byte
                            offset (must fit inside smem=).
                i32=5  i64=-3  index=7  f32=1.0  f64=2.5  i16=1  i8=1
                            scalars (index is 64-bit).
  expect=E    error | clean | hang: what the sanitizer must say, or that
              the kernel never finishes (a deadlock: the run times out);
              default error for a Bug, clean for a Twin.
  kernel=K    the gpu.func to launch, when a split holds several kernels.

Several tools, or several SANITIZE lines in one case, give several runs (e.g.
a twin checked by synccheck and memcheck); the split is compiled once.

Compilation
-----------
The split's text (verifier comments `// expected-...` stripped) is compiled
without --canonicalize/--cse, and so that no access the source makes is
optimized away: most planted out-of-bounds loads have unused results, and every
optimizer on the way (MLIR's greedy drivers, inside --convert-gpu-to-nvvm too;
LLVM; ptxas) deletes a dead load, which would make the bug vanish from the
binary. The same treatment goes to bugs and twins (--no-volatile: off):

  0. each memref.load of a workgroup memref whose result is unused gets a
     use: an empty side-effecting `llvm.inline_asm` that reads it,
  1. mlir-opt --nvvm-attach-target="chip=CHIP features=+ptxNN O=OPT"
              --convert-to-llvm
     a pure dialect conversion: global memref/vector loads and stores become
     llvm.load/llvm.store while the kernel stays a gpu.func (it reports the
     workgroup memrefs it cannot convert on stderr; step 3 converts them),
  2. every llvm.load/llvm.store is marked volatile,
  3. mlir-opt --convert-nvgpu-to-nvvm
              --convert-vector-to-scf="full-unroll=true target-rank=1"
              --convert-vector-to-llvm (n-D transfers as guarded 1-D ones,
              a 1-D transfer past its row as a masked load or store)
              --convert-scf-to-cf --convert-nvvm-to-llvm
              --expand-strided-metadata --lower-affine --convert-arith-to-llvm
              --convert-index-to-llvm --convert-gpu-to-nvvm
              --reconcile-unrealized-casts
  4. every llvm.load/llvm.store is marked volatile again (the workgroup ones
     step 3 made), and each unused nvvm.ldmatrix result is read by an empty
     side-effecting inline asm,
  5. mlir-opt --gpu-module-to-binary=format=isa  -> PTX (OUT/<stem>.ptx);
     a `.ptr .shared` mark on a kernel parameter (a workgroup memref
     argument) is dropped, since the driver refuses a cubin with a
     shared-pointer parameter (CUDA_ERROR_INVALID_IMAGE),
  6. ptxas -arch=CHIP  ->  OUT/<file>-<split>.cubin.
The text compiled (after step 0) is kept as OUT/<file>-<split>.mlir. A warning
names any case whose PTX has fewer memory instructions than its source has
memory ops.

Kernel ABI: the default (not bare-pointer) convention, so each memref argument
becomes allocated ptr, aligned ptr, offset, sizes..., strides... (i64); the
script derives this from the gpu.func signature and checks it, parameter by
parameter and size by size, against the `.param` list of the PTX `.entry`.
Shared-memory (addrspace 3) pointers are as wide as the PTX says.

Outputs
-------
OUT/manifest.json   one entry per SANITIZE line: file, split, kernel, kind
                    (Bug/Twin), comment, tool, expect, grid, block, smem,
                    args, the ABI (every .param, its role and value), cubin.
OUT/manifest.txt    the same, line based, for amk-launch:
                      case N / name S / cubin F / kernel K / tool T /
                      expect E / grid X Y Z / block X Y Z / smem B /
                      buffer ID DTYPE COUNT ELEMBYTES / param KIND VALUE / end
                    param kinds: ptr BUF (8-byte device pointer), sptr32 OFF /
                    sptr64 OFF (shared-window address of the dynamic shared
                    memory + OFF), i8 i16 i32 i64 f32 f64 VALUE.

Exit status: 0 when every directive compiled, 1 otherwise. stdlib only.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "index": 8,
                "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}
TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck", "run")

STAGE1 = ["--convert-to-llvm"]
STAGE2 = ["--convert-nvgpu-to-nvvm",
          "--convert-vector-to-scf=full-unroll=true target-rank=1",
          "--convert-vector-to-llvm",
          "--convert-scf-to-cf", "--convert-nvvm-to-llvm",
          "--expand-strided-metadata", "--lower-affine",
          "--convert-arith-to-llvm", "--convert-index-to-llvm",
          "--convert-gpu-to-nvvm", "--reconcile-unrealized-casts"]
STAGE3 = ["--gpu-module-to-binary=format=isa"]


class CaseError(Exception):
    pass


def find_tool(name, candidates):
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which(name)
    if found:
        return found
    sys.exit(f"corpus-cubins: cannot find {name} (tried {candidates})")


# ---------------------------------------------------------------- parsing ---

def split_corpus(text):
    """Yields (split index, first line number (1-based), split text)."""
    line = 1
    for i, part in enumerate(re.split(r"^// -----[ \t]*$", text, flags=re.M)):
        yield i, line, part
        line += part.count("\n")


def case_comment(split):
    """The Bug/Twin kind and its comment paragraph, or (None, '')."""
    lines = split.splitlines()
    for k, l in enumerate(lines):
        m = re.match(r"\s*//\s*(Bug|Twin):\s*(.*)", l)
        if m:
            text = [m.group(2).strip()]
            for nxt in lines[k + 1:]:
                c = re.match(r"\s*//\s?(.*)", nxt)
                if not c or c.group(1).startswith("SANITIZE:"):
                    break
                text.append(c.group(1).strip())
            return m.group(1), " ".join(t for t in text if t)
    return None, ""


def split_top(s, sep=","):
    """Splits on sep outside <>, (), [] and {}."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


def matching_paren(s, start):
    depth = 0
    for i in range(start, len(s)):
        if s[i] == "(":
            depth += 1
        elif s[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise CaseError("unbalanced parentheses in a gpu.func signature")


def kernels_of(split):
    """{name: {'args': [type str], 'attrs': str}} of the split's gpu.func kernels."""
    out = {}
    for m in re.finditer(r"gpu\.func\s+@([\w$.]+)\s*\(", split):
        close = matching_paren(split, m.end() - 1)
        arglist = split[m.end():close]
        # Workgroup/private attributions sit between the arguments and
        # `kernel`; they are not kernel arguments.
        while True:
            wm = re.match(r"\s*(workgroup|private)\s*\(", split[close + 1:])
            if not wm:
                break
            close = matching_paren(split, close + 1 + wm.end() - 1)
        rest = split[close + 1:split.find("{", close)]
        if not re.match(r"\s*kernel\b", rest):
            continue
        brace = split.find("{", close)
        attrs = ""
        am = re.search(r"attributes\s*\{", split[close:])
        if am and close + am.start() < brace + 1:
            a0 = close + am.end() - 1
            depth = 0
            for j in range(a0, len(split)):
                if split[j] == "{":
                    depth += 1
                elif split[j] == "}":
                    depth -= 1
                    if depth == 0:
                        attrs = split[a0:j + 1]
                        break
        types = []
        for a in split_top(arglist):
            if ":" not in a:
                raise CaseError(f"cannot read kernel argument '{a}'")
            # (Without its argument attributes: `{amk.counter}`.)
            types.append(re.sub(r"\s*\{[^{}]*\}\s*$", "",
                                a.split(":", 1)[1].strip()))
        out[m.group(1)] = {"args": types, "attrs": attrs}
    return out


def int_array_attr(attrs, name):
    m = re.search(name + r"\s*=\s*array<i32:\s*([\d,\s]+)>", attrs)
    return [int(x) for x in m.group(1).split(",")] if m else None


def parse_memref_type(t):
    """memref<?x64xf32, #gpu.address_space<workgroup>> ->
    (dims [None, 64], elem 'f32', space 'global'|'shared')."""
    m = re.fullmatch(r"memref<(.*)>", t.strip())
    if not m:
        return None
    parts = split_top(m.group(1))
    sm = re.fullmatch(r"((?:(?:\?|\d+)x)*)(\w+)", parts[0])
    if not sm:
        raise CaseError(f"cannot read memref shape '{parts[0]}'")
    elem = sm.group(2)
    dims = [None if d == "?" else int(d)
            for d in sm.group(1).split("x") if d != ""]
    space = "global"
    for extra in parts[1:]:
        if re.fullmatch(r"#gpu\.address_space<workgroup>|3", extra):
            space = "shared"
        elif re.fullmatch(r"#gpu\.address_space<global>|1|0", extra):
            space = "global"
        else:
            raise CaseError(f"memref layout/space '{extra}' is not supported "
                            f"(identity layouts only)")
    if elem not in SCALAR_BYTES or elem == "i1":
        raise CaseError(f"memref element type '{elem}' is not supported")
    return dims, elem, space


def parse_triple(v, what):
    parts = [int(x) for x in v.replace("x", ",").split(",") if x != ""]
    if not 1 <= len(parts) <= 3 or min(parts) < 1:
        raise CaseError(f"bad {what} '{v}'")
    return parts + [1] * (3 - len(parts))


def parse_directive(body):
    d = {}
    for tok in body.split():
        if "=" not in tok:
            raise CaseError(f"SANITIZE field '{tok}' is not key=value")
        k, v = tok.split("=", 1)
        if k in d:
            raise CaseError(f"SANITIZE field '{k}' given twice")
        d[k] = v
    unknown = set(d) - {"tool", "grid", "block", "smem", "args", "expect",
                        "kernel"}
    if unknown:
        raise CaseError(f"unknown SANITIZE field(s) {sorted(unknown)}")
    tools = d.get("tool", "").split(",")
    if not all(t in TOOLS for t in tools):
        raise CaseError(f"SANITIZE tool must be one of {TOOLS} (or a comma "
                        f"list), got {d.get('tool')!r}")
    d["tools"] = tools
    return d


def parse_arg(spec):
    """One args= entry -> dict."""
    m = re.fullmatch(r"(\w+)\[([\dx]+)\](?:@smem(?:\+(\d+))?|@zero)?", spec)
    if m:
        dims = [int(x) for x in m.group(2).split("x")]
        shared = "@smem" in spec
        return {"kind": "memref", "elem": m.group(1), "dims": dims,
                "space": "shared" if shared else "global",
                "fill": "zero" if spec.endswith("@zero") else "pattern",
                "smem_offset": int(m.group(3) or 0) if shared else None,
                "spec": spec}
    m = re.fullmatch(r"(\w+)=(\S+)", spec)
    if m and m.group(1) in SCALAR_BYTES:
        ty, val = m.group(1), m.group(2)
        try:
            value = float(val) if ty.startswith(("f", "bf")) else int(val, 0)
        except ValueError:
            raise CaseError(f"bad scalar value in '{spec}'")
        return {"kind": "scalar", "type": ty, "value": value, "spec": spec}
    raise CaseError(f"cannot read kernel argument spec '{spec}'")


# ------------------------------------------------------------------- ABI ----

def expected_abi(arg_types, arg_specs):
    """The kernel parameters the default MLIR lowering makes, with values.

    Returns a list of dicts: role, bytes (None for pointers: PTX decides),
    kind, value; and the buffers to allocate."""
    if len(arg_types) != len(arg_specs):
        raise CaseError(f"the kernel takes {len(arg_types)} argument(s), "
                        f"args= gives {len(arg_specs)}")
    params, buffers = [], []
    for i, (t, spec) in enumerate(zip(arg_types, arg_specs)):
        mr = parse_memref_type(t)
        if mr:
            dims, elem, space = mr
            if spec["kind"] != "memref":
                raise CaseError(f"argument {i} is {t}, args= gives a scalar")
            if spec["elem"] != elem:
                raise CaseError(f"argument {i} is {t}, args= says "
                                f"{spec['elem']}")
            if len(spec["dims"]) != len(dims):
                raise CaseError(f"argument {i} is {t} (rank {len(dims)}), "
                                f"args= gives rank {len(spec['dims'])}")
            for k, (static, given) in enumerate(zip(dims, spec["dims"])):
                if static is not None and static != given:
                    raise CaseError(f"argument {i} is {t}: dim {k} is "
                                    f"{static}, args= gives {given}")
            if spec["space"] != space:
                raise CaseError(f"argument {i} is a {space} memref ({t}); "
                                f"args= gives a {spec['space']} one "
                                f"(shared memrefs are written "
                                f"{elem}[..]@smem)")
            sizes = spec["dims"]
            strides = [1] * len(sizes)
            for k in range(len(sizes) - 2, -1, -1):
                strides[k] = strides[k + 1] * sizes[k + 1]
            count = 1
            for s in sizes:
                count *= s
            nbytes = count * SCALAR_BYTES[elem]
            if space == "global":
                buf = len(buffers)
                buffers.append({"id": buf, "arg": i, "elem": elem,
                                "count": count, "fill": spec["fill"],
                                "elem_bytes": SCALAR_BYTES[elem],
                                "bytes": nbytes})
                ptr = {"kind": "ptr", "value": buf}
            else:
                ptr = {"kind": "sptr", "value": spec["smem_offset"],
                       "bytes_needed": spec["smem_offset"] + nbytes}
            params.append(dict(ptr, role=f"arg{i} allocated ptr",
                               space=space))
            params.append(dict(ptr, role=f"arg{i} aligned ptr", space=space))
            params.append({"kind": "i64", "value": 0, "role": f"arg{i} offset"})
            for k, s in enumerate(sizes):
                params.append({"kind": "i64", "value": s,
                               "role": f"arg{i} size[{k}]"})
            for k, s in enumerate(strides):
                params.append({"kind": "i64", "value": s,
                               "role": f"arg{i} stride[{k}]"})
        else:
            ty = t.strip()
            if ty not in SCALAR_BYTES:
                raise CaseError(f"argument {i} has unsupported type {t}")
            if spec["kind"] != "scalar":
                raise CaseError(f"argument {i} is {t}, args= gives a memref")
            want = "i64" if ty == "index" else ty
            got = "i64" if spec["type"] == "index" else spec["type"]
            if want != got:
                raise CaseError(f"argument {i} is {t}, args= says "
                                f"{spec['type']}")
            if want in ("f16", "bf16", "i1"):
                raise CaseError(f"scalar type {t} is not supported")
            params.append({"kind": want, "value": spec["value"],
                           "role": f"arg{i} ({t})"})
    return params, buffers


def ptx_entry_params(ptx, kernel):
    """[(name, type, bytes, space)] of `.entry kernel(...)`."""
    m = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)", ptx,
                  re.S)
    if not m:
        if re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*$", ptx, re.M) \
                or re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\n\s*\{",
                             ptx):
            return []
        raise CaseError(f"no .entry {kernel} in the PTX")
    out = []
    for p in m.group(1).split(","):
        p = p.strip()
        if not p:
            continue
        pm = re.match(r"\.param\s+\.([usbf])(8|16|32|64)\s+(.*?)(\S+)$", p)
        if not pm:
            raise CaseError(f"cannot read PTX parameter '{p}'")
        quals = pm.group(3)
        space = "shared" if ".shared" in quals else (
            "global" if ".global" in quals else None)
        out.append({"name": pm.group(4), "ptx": pm.group(1) + pm.group(2),
                    "bytes": PTX_BYTES[pm.group(2)],
                    "is_ptr": ".ptr" in quals, "ptr_space": space})
    return out


def bind_abi(params, ptx_params, kernel):
    if len(params) != len(ptx_params):
        raise CaseError(f"{kernel}: expected {len(params)} kernel parameters "
                        f"from the memref expansion, the PTX has "
                        f"{len(ptx_params)}: {[p['ptx'] for p in ptx_params]}")
    out = []
    for p, q in zip(params, ptx_params):
        kind = p["kind"]
        if (kind == "ptr") != (q["ptr_space"] != "shared") and \
                q["ptr_space"] is not None:
            raise CaseError(f"{p['role']}: the PTX says a .{q['ptr_space']} "
                            f"pointer")
        if kind == "ptr":
            if q["bytes"] != 8:
                raise CaseError(f"{p['role']}: a global pointer as "
                                f".{q['ptx']}")
        elif kind == "sptr":
            kind = "sptr%d" % (8 * q["bytes"])
            if q["bytes"] not in (4, 8):
                raise CaseError(f"{p['role']}: a shared pointer as "
                                f".{q['ptx']}")
        else:
            want = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f32": 4,
                    "f64": 8}[kind]
            if want != q["bytes"]:
                # PTX widens i8/i16 params to at least .b8/.b16; sizes must
                # still agree for the driver.
                raise CaseError(f"{p['role']}: {kind} expected, PTX has "
                                f".{q['ptx']}")
        e = dict(p, kind=kind, ptx_name=q["name"], ptx_type=q["ptx"],
                 bytes=q["bytes"])
        out.append(e)
    return out


# --------------------------------------------------------------- compile ----

def strip_verifier_comments(text):
    return re.sub(r"^[ \t]*//[ \t]*expected-.*\n", "", text, flags=re.M)


def unescape_mlir_string(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\":
            nxt = s[i + 1]
            if nxt in "\\\"":
                out.append(nxt)
                i += 2
            elif nxt == "n":
                out.append("\n")
                i += 2
            elif nxt == "t":
                out.append("\t")
                i += 2
            else:
                out.append(chr(int(s[i + 1:i + 3], 16)))
                i += 3
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise CaseError(f"{what} failed ({' '.join(cmd[:2])} ...):\n"
                        f"{p.stderr.strip()[-3000:]}")
    return p.stdout


ASM_CONSTRAINT = {"f32": "f", "f64": "d", "i32": "r", "i64": "l", "i16": "h",
                  "f16": "h", "bf16": "h"}


def sink_dead_shared_loads(src):
    """Gives each memref.load of a workgroup memref whose result is unused a
    use (an empty side-effecting inline asm reading it). Such loads are
    trivially dead, and MLIR's greedy rewrites (inside --convert-gpu-to-nvvm
    too) erase them before any later step could mark them volatile; global
    ones are kept by stage 1 instead. Returns (text, count)."""
    lines = src.splitlines()
    out, n = [], 0
    for k, line in enumerate(lines):
        out.append(line)
        m = re.match(r"(\s*)(%[\w.$-]+) = memref\.load .*:\s*(memref<.*>)"
                     r"\s*$", line)
        if not m:
            continue
        ind, val, ty = m.groups()
        if not re.search(r"#gpu\.address_space<workgroup>|,\s*3>$", ty):
            continue
        if re.search(re.escape(val) + r"(?![\w.$-])",
                     "\n".join(lines[k + 1:])):
            continue
        elem = parse_memref_type(ty)[1]
        if elem == "index":
            out.append(f"{ind}{val}_keep = arith.index_cast {val} : index to "
                       f"i64")
            val, elem = val + "_keep", "i64"
        if elem not in ASM_CONSTRAINT:
            continue
        out.append(f'{ind}llvm.inline_asm has_side_effects "", '
                   f'"{ASM_CONSTRAINT[elem]}" {val} : ({elem}) -> ()')
        n += 1
    return "\n".join(out) + "\n", n


def keep_accesses(llvm_mlir):
    """Marks every llvm.load/llvm.store volatile and gives each unused
    nvvm.ldmatrix result a use (an empty side-effecting inline asm), so that
    no optimizer can drop an access the source makes. Returns (text, count)."""
    text = re.sub(r"\bllvm\.(load|store) (?!volatile)", r"llvm.\1 volatile ",
                  llvm_mlir)
    n = 0
    out = []
    lines = text.splitlines()
    for k, line in enumerate(lines):
        out.append(line)
        m = re.match(r"(\s*)(%[\w.$-]+) = nvvm\.ldmatrix .*-> "
                     r"!llvm\.struct<\(([^)]*)\)>\s*$", line)
        if not m:
            continue
        val = m.group(2)
        if re.search(re.escape(val) + r"\b", "\n".join(lines[k + 1:])):
            continue
        ind, fields = m.group(1), [f.strip() for f in m.group(3).split(",")]
        st = f"!llvm.struct<({', '.join(fields)})>"
        names = []
        for j, ty in enumerate(fields):
            e = f"%amk_keep_{val[1:]}_{j}"
            out.append(f"{ind}{e} = llvm.extractvalue {val}[{j}] : {st}")
            names.append(e)
        cons = ",".join("r" for _ in fields)
        out.append(f'{ind}llvm.inline_asm has_side_effects "", "{cons}" '
                   f'{", ".join(names)} : ({", ".join(fields)}) -> ()')
        n += 1
    return "\n".join(out) + "\n", n


def compile_split(src, stem, args, tmp):
    """src -> (ptx text, cubin path, number of accesses kept)."""
    n_sunk = 0
    if not args.no_volatile:
        src, n_sunk = sink_dead_shared_loads(src)
    mlir = os.path.join(args.out, stem + ".mlir")
    with open(mlir, "w") as f:
        f.write(src)
    target = (f"--nvvm-attach-target=chip={args.chip} "
              f"features=+ptx{args.ptx} O={args.opt_level}")
    # Stage 1 reports workgroup memrefs it cannot convert (stage 2 does) on
    # stderr but succeeds; only its exit status counts.
    s1 = run([args.mlir_opt, mlir, target] + STAGE1, "stage 1 (convert-to-llvm)")
    if not args.no_volatile:
        s1 = keep_accesses(s1)[0]
    s1_path = os.path.join(tmp, stem + ".s1.mlir")
    with open(s1_path, "w") as f:
        f.write(s1)
    s2 = run([args.mlir_opt, s1_path] + STAGE2, "stage 2 (to the LLVM dialect)")
    n_kept = 0
    if not args.no_volatile:
        s2, n_sinks = keep_accesses(s2)
        n_kept = n_sinks + len(re.findall(r"\bllvm\.(load|store) volatile\b",
                                          s2))
    s2_path = os.path.join(tmp, stem + ".s2.mlir")
    with open(s2_path, "w") as f:
        f.write(s2)
    s3 = run([args.mlir_opt, s2_path] + STAGE3, "stage 3 (gpu-module-to-binary)")
    objs = re.findall(r'assembly\s*=\s*"((?:[^"\\]|\\.)*)"', s3)
    if len(objs) != 1:
        raise CaseError(f"expected one PTX object in the gpu.binary, found "
                        f"{len(objs)}")
    ptx = unescape_mlir_string(objs[0])
    # A kernel parameter the NVPTX backend marks `.ptr .shared` (a workgroup
    # memref argument) makes ptxas record a shared-pointer parameter that the
    # driver refuses at cuModuleLoad (CUDA_ERROR_INVALID_IMAGE, seen with
    # driver 580 on an H200). The mark is only a hint (the code addresses
    # through st/ld.shared either way): drop it, leaving a plain .u64/.u32.
    ptx = re.sub(r"\.ptr\s+\.shared\s+(?:\.align\s+\d+\s+)?", "", ptx)
    ptx_path = os.path.join(args.out, stem + ".ptx")
    with open(ptx_path, "w") as f:
        f.write(ptx)
    cubin = os.path.join(args.out, stem + ".cubin")
    run([args.ptxas, f"-arch={args.chip}", "-o", cubin, ptx_path], "ptxas")
    return ptx, cubin, n_kept + n_sunk


def count_source_accesses(src):
    return len(re.findall(r"\b(memref\.(load|store|atomic_rmw)|vector\."
                          r"(load|store|maskedload|maskedstore|transfer_read"
                          r"|transfer_write)|nvgpu\.device_async_copy|"
                          r"nvgpu\.ldmatrix)\b", src))


def count_ptx_accesses(ptx):
    n = 0
    for line in ptx.splitlines():
        m = re.match(r"\s*(?:@!?%\w+\s+)?(ld|st|ldmatrix|stmatrix|cp\.async|"
                     r"atom|red)\.(\S+)", line)
        if not m:
            continue
        if m.group(1) in ("ld", "st") and re.match(r"(param|local)\b",
                                                   m.group(2)):
            continue
        if m.group(1) == "cp.async" and re.match(r"(commit|wait)",
                                                 m.group(2)):
            continue
        n += 1
    return n


# ------------------------------------------------------------------ main ----

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*",
                    help="corpus files (default test/Harness/*.mlir)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/out/corpus"))
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--ptx", default="80", help="PTX ISA version, e.g. 80")
    ap.add_argument("--opt-level", type=int, default=2,
                    help="LLVM optimization level of the NVVM target")
    ap.add_argument("--no-volatile", action="store_true",
                    help="keep loads/stores non-volatile (dead ones vanish)")
    ap.add_argument("--mlir-opt", default=None)
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--keep-temps", action="store_true")
    args = ap.parse_args()
    args.mlir_opt = args.mlir_opt or find_tool(
        "mlir-opt", ["/usr/lib/llvm-22/bin/mlir-opt"])
    args.ptxas = args.ptxas or find_tool(
        "ptxas", ["/usr/local/cuda/bin/ptxas"])
    files = args.files or sorted(glob.glob(os.path.join(ROOT,
                                                        "test/Harness/*.mlir")))
    os.makedirs(args.out, exist_ok=True)
    for old in glob.glob(os.path.join(args.out, "*")):
        if re.search(r"\.(cubin|ptx|mlir)$|^manifest\.(json|txt)$",
                     os.path.basename(old)):
            os.remove(old)
    tmp = tempfile.mkdtemp(prefix="corpus-cubins-")

    cases, failures = [], []
    for path in files:
        text = open(path).read()
        base = os.path.splitext(os.path.basename(path))[0]
        rel = os.path.relpath(path, ROOT)
        for index, first_line, split in split_corpus(text):
            directives = [(first_line + split[:m.start()].count("\n"),
                           m.group(1))
                          for m in re.finditer(r"^[ \t]*//[ \t]*SANITIZE:(.*)$",
                                               split, re.M)]
            if not directives:
                continue
            stem = f"{base}-{index}"
            where = f"{rel}:{directives[0][0]} (split {index})"
            try:
                kind, comment = case_comment(split)
                if kind is None:
                    raise CaseError("a SANITIZE line in a split with no "
                                    "'// Bug:' or '// Twin:' comment")
                kernels = kernels_of(split)
                if not kernels:
                    raise CaseError("no gpu.func ... kernel in the split")
                src = strip_verifier_comments(split).strip() + "\n"
                ptx, cubin, n_vol = compile_split(src, stem, args, tmp)
                src_acc = count_source_accesses(src)
                ptx_acc = count_ptx_accesses(ptx)
                if ptx_acc < src_acc:
                    print(f"warning: {where}: {src_acc} memory access op(s) "
                          f"in the source, {ptx_acc} in the PTX: some were "
                          f"optimized away", file=sys.stderr)
            except CaseError as e:
                failures.append(f"{where}: {e}")
                print(f"FAIL {where}: {e}", file=sys.stderr)
                continue
            for line, body in directives:
                dwhere = f"{rel}:{line}"
                try:
                    d = parse_directive(body)
                    name = d.get("kernel")
                    if name is None:
                        if len(kernels) != 1:
                            raise CaseError(f"several kernels "
                                            f"{sorted(kernels)}: say kernel=")
                        name = next(iter(kernels))
                    if name not in kernels:
                        raise CaseError(f"no kernel @{name} in the split")
                    k = kernels[name]
                    kb = int_array_attr(k["attrs"], "known_block_size")
                    kg = int_array_attr(k["attrs"], "known_grid_size")
                    ks = re.search(r"amk\.dynamic_smem_bytes\s*=\s*(\d+)",
                                   k["attrs"])
                    ks = int(ks.group(1)) if ks else None
                    if "block" in d:
                        block = parse_triple(d["block"], "block")
                    elif kb:
                        block = kb
                    else:
                        raise CaseError("block= is required (the kernel has "
                                        "no known_block_size)")
                    if kb and block != kb:
                        raise CaseError(f"block {block} contradicts "
                                        f"known_block_size {kb}")
                    grid = (parse_triple(d["grid"], "grid") if "grid" in d
                            else kg or [1, 1, 1])
                    if kg and grid != kg:
                        raise CaseError(f"grid {grid} contradicts "
                                        f"known_grid_size {kg}")
                    smem = int(d["smem"]) if "smem" in d else (ks or 0)
                    if ks is not None and smem != ks:
                        raise CaseError(f"smem {smem} contradicts "
                                        f"amk.dynamic_smem_bytes {ks}")
                    specs = [parse_arg(a) for a in
                             (d.get("args", "").split(",")
                              if d.get("args") else [])]
                    params, buffers = expected_abi(k["args"], specs)
                    for p in params:
                        if p["kind"] == "sptr" and p["bytes_needed"] > smem:
                            raise CaseError(f"{p['role']} needs "
                                            f"{p['bytes_needed']} B of "
                                            f"dynamic shared memory, smem="
                                            f"{smem}")
                    abi = bind_abi(params, ptx_entry_params(ptx, name), name)
                    expect = d.get("expect",
                                   "error" if kind == "Bug" else "clean")
                    if expect not in ("error", "clean", "hang"):
                        raise CaseError("expect= must be error, clean or "
                                        "hang")
                except CaseError as e:
                    failures.append(f"{dwhere}: {e}")
                    print(f"FAIL {dwhere}: {e}", file=sys.stderr)
                    continue
                for tool in d["tools"]:
                    cases.append({
                        "id": len(cases), "name": f"{stem}:{name}:{tool}",
                        "file": rel, "split": index, "line": line,
                        "kernel": name, "kind": kind, "comment": comment,
                        "tool": tool, "expect": expect, "grid": grid,
                        "block": block, "smem": smem,
                        "cooperative": "amk.cooperative" in k["attrs"],
                        "directive": body.strip(),
                        "args": [s["spec"] for s in specs],
                        "buffers": buffers, "abi": abi,
                        "cubin": os.path.basename(cubin),
                        "ptx": stem + ".ptx", "mlir": stem + ".mlir",
                        "kept_accesses": n_vol,
                        "source_accesses": src_acc,
                        "ptx_accesses": ptx_acc})
                print(f"ok   {dwhere}: {stem} @{name} {kind} {d['tool']} "
                      f"grid={grid} block={block} smem={smem} "
                      f"params={len(abi)}")
    manifest = {
        "generator": "scripts/corpus-cubins.py",
        "mlir_opt": args.mlir_opt, "ptxas": args.ptxas, "chip": args.chip,
        "pipeline": {"stage1": STAGE1, "volatile": not args.no_volatile,
                     "stage2": STAGE2, "stage3": STAGE3, "opt_level": args.opt_level,
                     "ptx": args.ptx},
        "cases": cases}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(args.out, "manifest.txt"), "w") as f:
        f.write(f"# written by scripts/corpus-cubins.py; {len(cases)} "
                f"case(s)\n")
        for c in cases:
            f.write(f"case {c['id']}\nname {c['name']}\ncubin {c['cubin']}\n"
                    f"kernel {c['kernel']}\nkind {c['kind']}\n"
                    f"tool {c['tool']}\nexpect {c['expect']}\n"
                    f"grid {' '.join(map(str, c['grid']))}\n"
                    f"block {' '.join(map(str, c['block']))}\n"
                    f"smem {c['smem']}\n"
                    f"cooperative {int(c['cooperative'])}\n")
            for b in c["buffers"]:
                f.write(f"buffer {b['id']} {b['elem']} {b['count']} "
                        f"{b['elem_bytes']} {b['fill']}\n")
            for p in c["abi"]:
                v = p["value"]
                v = repr(float(v)) if p["kind"] in ("f32", "f64") else v
                f.write(f"param {p['kind']} {v}\n")
            f.write("end\n")
    if not args.keep_temps:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(cases)} case(s) -> {args.out}/manifest.json"
          + (f"; {len(failures)} FAILED" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
