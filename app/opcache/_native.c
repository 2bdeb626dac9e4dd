/* The per-file loops of a cache measurement, in C: an optional accelerator.
 *
 * Why: a cache scan costs one lstat per file and, over the limit, one read and parse per kernel
 * json. In Python each of those costs ~2 us of interpreter work around ~1 us of system call (a
 * stat_result of 20 fields, orjson's dict of a 1 KiB json), so a pure-Python scan of 200,000
 * files stays at 2.5x `du -sb` or more however the work is split (docs/architecture.md,
 * "The C loops"). These functions do the same system calls, and the arithmetic of the
 * candidates' order, with none of that work around them. They decide nothing about CANN: the
 * rules' numbers and names come from the Python callers, and the readers answer only the plain
 * case and say "not plain" (None) for everything else, which the Python code then handles
 * exactly as it does without this module (app/opcache/scanner.py read_chunk and
 * ordered_candidates, app/opcache/cleanup.py _resolve_folder). tests/app/opcache/test_native.py
 * checks that both paths give the same answers.
 *
 * The names passed in are held (a reference) while the interpreter lock is released around a
 * system call that uses them.
 *
 * Built by setuptools when a C compiler is there (optional: without one, the pure-Python paths
 * run, only slower).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- plain_chunk ---------------------------------------------------------------------------- */

/* plain_chunk(dir_fd, names, json_mask, uid) -> tuple | None
 *
 * lstat (fstatat, AT_SYMLINK_NOFOLLOW) every name of `names` in the directory `dir_fd`. When
 * every one is a regular file with one link, returns
 *   (size_sum, blocks_sum, not_mine, other_uids, json_atimes, json_sizes, json_marks)
 * where not_mine counts the files whose owner is not `uid`, other_uids is a tuple of those owners
 * (both 0 and empty when `uid` is negative: not asked),
 * and for the names whose byte in `json_mask` is not 0, in order: json_atimes (bytes of C doubles,
 * st_atime as Python computes it), json_sizes (bytes of int64 st_size), json_marks (bytes, 1 when
 * the access time is later than both the change and the modification time, in nanoseconds).
 * Otherwise (a failed lstat, a directory, a symlink, a hard link, anything else) returns None.
 */
static PyObject *plain_chunk(PyObject *self, PyObject *args) {
    (void)self;
    int dir_fd;
    PyObject *names;
    Py_buffer mask;
    long long uid;
    if (!PyArg_ParseTuple(args, "iO!y*L", &dir_fd, &PyList_Type, &names, &mask, &uid))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    if (mask.len != count) {
        PyBuffer_Release(&mask);
        PyErr_SetString(PyExc_ValueError, "json_mask must have one byte per name");
        return NULL;
    }
    const char *is_json = (const char *)mask.buf;
    Py_ssize_t jsons = 0;
    for (Py_ssize_t i = 0; i < count; i++)
        jsons += is_json[i] != 0;
    PyObject *atimes = PyBytes_FromStringAndSize(NULL, jsons * (Py_ssize_t)sizeof(double));
    PyObject *sizes = PyBytes_FromStringAndSize(NULL, jsons * (Py_ssize_t)sizeof(long long));
    PyObject *marks = PyBytes_FromStringAndSize(NULL, jsons);
    PyObject *others = PyList_New(0);
    if (!atimes || !sizes || !marks || !others)
        goto fail;
    double *atime_out = (double *)PyBytes_AS_STRING(atimes);
    long long *size_out = (long long *)PyBytes_AS_STRING(sizes);
    char *mark_out = PyBytes_AS_STRING(marks);
    long long size_sum = 0, blocks_sum = 0, not_mine = 0;
    int plain = 1;
    for (Py_ssize_t i = 0; i < count && plain; i++) {
        PyObject *item = PyList_GET_ITEM(names, i);
        if (!PyUnicode_Check(item)) {
            plain = 0;
            break;
        }
        Py_ssize_t len;
        const char *name = PyUnicode_AsUTF8AndSize(item, &len);
        if (!name) {  /* a name that is no valid UTF-8 (surrogateescape): the Python path */
            PyErr_Clear();
            plain = 0;
            break;
        }
        if ((Py_ssize_t)strlen(name) != len) {
            plain = 0;
            break;
        }
        struct stat st;
        int rc;
        Py_INCREF(item);
        Py_BEGIN_ALLOW_THREADS
        rc = fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW);
        Py_END_ALLOW_THREADS
        Py_DECREF(item);
        if (rc != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
            plain = 0;
            break;
        }
        size_sum += (long long)st.st_size;
        blocks_sum += (long long)st.st_blocks;
        if (uid >= 0 && (long long)st.st_uid != uid) {
            not_mine++;
            PyObject *owner = PyLong_FromUnsignedLong((unsigned long)st.st_uid);
            if (!owner)
                goto fail;
            int known = PySequence_Contains(others, owner);
            if (known == 0 && PyList_Append(others, owner) < 0)
                known = -1;
            Py_DECREF(owner);
            if (known < 0)
                goto fail;
        }
        if (is_json[i]) {
            /* Python's st_atime: seconds + nanoseconds * 1e-9, as a double (posixmodule.c fill_time). */
            *atime_out++ = (double)st.st_atim.tv_sec + (double)st.st_atim.tv_nsec * 1e-9;
            *size_out++ = (long long)st.st_size;
            long long a = (long long)st.st_atim.tv_sec * 1000000000LL + st.st_atim.tv_nsec;
            long long m = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
            long long c = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
            *mark_out++ = (char)(a > m && a > c);
        }
    }
    PyBuffer_Release(&mask);
    if (!plain) {
        Py_DECREF(atimes);
        Py_DECREF(sizes);
        Py_DECREF(marks);
        Py_DECREF(others);
        Py_RETURN_NONE;
    }
    PyObject *owners = PyList_AsTuple(others);
    Py_DECREF(others);
    if (!owners) {
        Py_DECREF(atimes);
        Py_DECREF(sizes);
        Py_DECREF(marks);
        return NULL;
    }
    return Py_BuildValue("(LLLNNNN)", size_sum, blocks_sum, not_mine, owners, atimes, sizes, marks);
fail:
    PyBuffer_Release(&mask);
    Py_XDECREF(atimes);
    Py_XDECREF(sizes);
    Py_XDECREF(marks);
    Py_XDECREF(others);
    return NULL;
}

/* ---- kernel_groups -------------------------------------------------------------------------- */

/* A conservative JSON check: accepts only text that nlohmann::json's strict parse accepts too
 * (RFC 8259: ASCII only here, no \u escape of a UTF-16 surrogate, numbers that stay finite as a
 * double, nesting no deeper than MAX_DEPTH), and rejects everything else, some valid JSON
 * included. A rejected json goes the Python way (orjson with CANN's rules). */
#define MAX_DEPTH 512
#define MAX_MAGNITUDE 300 /* 10^300 < DBL_MAX: a number of at most 300 integer digits, exponent included, is finite */

typedef struct {
    const unsigned char *p, *end;
    int depth;
} Cursor;

static void skip_space(Cursor *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A string at s->p (the opening quote). Sets *start and *len to its raw content and *escaped when
 * it holds a backslash. Returns 0 when accepted. */
static int scan_string(Cursor *s, const unsigned char **start, Py_ssize_t *len, int *escaped) {
    s->p++;
    *start = s->p;
    *escaped = 0;
    while (s->p < s->end) {
        unsigned char c = *s->p;
        if (c == '"') {
            *len = s->p - *start;
            s->p++;
            return 0;
        }
        if (c < 0x20 || c >= 0x80)
            return -1;
        if (c == '\\') {
            *escaped = 1;
            if (s->end - s->p < 2)
                return -1;
            unsigned char e = s->p[1];
            if (e == 'u') {
                if (s->end - s->p < 6)
                    return -1;
                int code = 0;
                for (int k = 2; k < 6; k++) {
                    int h = hex_value(s->p[k]);
                    if (h < 0)
                        return -1;
                    code = code * 16 + h;
                }
                if (code >= 0xD800 && code <= 0xDFFF)
                    return -1; /* surrogates: nlohmann's pairing rules, left to the Python way */
                s->p += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0)
                return -1;
            s->p += 2;
            continue;
        }
        s->p++;
    }
    return -1;
}

static int scan_number(Cursor *s) {
    const unsigned char *p = s->p;
    if (p < s->end && *p == '-')
        p++;
    if (p >= s->end)
        return -1;
    long digits = 0;
    if (*p == '0') {
        p++;
        digits = 1;
    } else if (*p >= '1' && *p <= '9') {
        while (p < s->end && *p >= '0' && *p <= '9') {
            p++;
            digits++;
        }
    } else {
        return -1;
    }
    if (p < s->end && *p == '.') {
        p++;
        if (p >= s->end || *p < '0' || *p > '9')
            return -1;
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    }
    long exponent = 0;
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        int negative = 0;
        if (p < s->end && (*p == '+' || *p == '-')) {
            negative = *p == '-';
            p++;
        }
        if (p >= s->end || *p < '0' || *p > '9')
            return -1;
        int exp_digits = 0;
        while (p < s->end && *p >= '0' && *p <= '9') {
            if (++exp_digits > 6)
                return -1;
            exponent = exponent * 10 + (*p - '0');
            p++;
        }
        if (negative)
            exponent = -exponent;
    }
    if (digits + exponent > MAX_MAGNITUDE || digits > MAX_MAGNITUDE)
        return -1;
    s->p = p;
    return 0;
}

static int scan_value(Cursor *s);

static int scan_container(Cursor *s, unsigned char close) {
    if (++s->depth > MAX_DEPTH)
        return -1;
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        s->depth--;
        return 0;
    }
    for (;;) {
        if (close == '}') {
            const unsigned char *key;
            Py_ssize_t key_len;
            int escaped;
            if (s->p >= s->end || *s->p != '"' || scan_string(s, &key, &key_len, &escaped))
                return -1;
            skip_space(s);
            if (s->p >= s->end || *s->p != ':')
                return -1;
            s->p++;
        }
        if (scan_value(s))
            return -1;
        skip_space(s);
        if (s->p >= s->end)
            return -1;
        if (*s->p == ',') {
            s->p++;
            skip_space(s);
            continue;
        }
        if (*s->p == close) {
            s->p++;
            s->depth--;
            return 0;
        }
        return -1;
    }
}

static int scan_literal(Cursor *s, const char *word, size_t len) {
    if ((size_t)(s->end - s->p) < len || memcmp(s->p, word, len) != 0)
        return -1;
    s->p += len;
    return 0;
}

/* A value at s->p (after any space). */
static int scan_value(Cursor *s) {
    skip_space(s);
    if (s->p >= s->end)
        return -1;
    const unsigned char *start;
    Py_ssize_t len;
    int escaped;
    switch (*s->p) {
    case '{': return scan_container(s, '}');
    case '[': return scan_container(s, ']');
    case '"': return scan_string(s, &start, &len, &escaped);
    case 't': return scan_literal(s, "true", 4);
    case 'f': return scan_literal(s, "false", 5);
    case 'n': return scan_literal(s, "null", 4);
    default: return scan_number(s);
    }
}

/* What a kernel json names, as pointers into its text. */
#define MAX_LISTED 64

typedef struct {
    const unsigned char *bin_name, *bin_suffix;
    Py_ssize_t bin_name_len, bin_suffix_len;
    int names, suffixes, lists; /* how often each top-level key occurs */
    int listed;                 /* the jsonList's items (each an object with one "jsonFileName") */
    const unsigned char *listed_name[MAX_LISTED];
    Py_ssize_t listed_len[MAX_LISTED];
} KernelFields;

static int key_is(const unsigned char *key, Py_ssize_t len, const char *word) {
    return (size_t)len == strlen(word) && memcmp(key, word, (size_t)len) == 0;
}

/* A string without escapes at s->p: its content. */
static int plain_string(Cursor *s, const unsigned char **value, Py_ssize_t *len) {
    int escaped;
    if (s->p >= s->end || *s->p != '"' || scan_string(s, value, len, &escaped) || escaped)
        return -1;
    return 0;
}

/* A key (a string without escapes: a key spelled with escapes could be any of CANN's, so such
 * a json goes the Python way), the space and the colon after it. */
static int object_key(Cursor *s, const unsigned char **key, Py_ssize_t *len) {
    skip_space(s);
    if (plain_string(s, key, len))
        return -1;
    skip_space(s);
    if (s->p >= s->end || *s->p != ':')
        return -1;
    s->p++;
    skip_space(s);
    return 0;
}

/* After a member: "," (returns 1, more follow) or the closing bracket (returns 0). */
static int next_member(Cursor *s, unsigned char close) {
    skip_space(s);
    if (s->p >= s->end)
        return -1;
    if (*s->p == ',') {
        s->p++;
        return 1;
    }
    if (*s->p == close) {
        s->p++;
        return 0;
    }
    return -1;
}

/* The jsonList array: objects, each with "jsonFileName" once as a string without escapes
 * (other keys any valid value). */
static int json_list(Cursor *s, KernelFields *out) {
    if (s->p >= s->end || *s->p != '[')
        return -1;
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 0;
    }
    s->depth = 2;
    for (;;) {
        skip_space(s);
        if (s->p >= s->end || *s->p != '{' || out->listed >= MAX_LISTED)
            return -1;
        s->p++;
        s->depth = 3;
        int found = 0;
        for (;;) {
            const unsigned char *key;
            Py_ssize_t key_len;
            if (object_key(s, &key, &key_len))
                return -1;
            if (key_is(key, key_len, "jsonFileName")) {
                if (found++ || plain_string(s, &out->listed_name[out->listed], &out->listed_len[out->listed]))
                    return -1;
            } else if (scan_value(s)) {
                return -1;
            }
            int more = next_member(s, '}');
            if (more < 0)
                return -1;
            if (!more)
                break;
        }
        if (found != 1)
            return -1;
        out->listed++;
        s->depth = 2;
        int more = next_member(s, ']');
        if (more < 0)
            return -1;
        if (!more)
            return 0;
    }
}

/* A strictly valid json object (scan_value's rules), and what its top level names: returns 0
 * and fills `out`. A top-level key spelled with escapes, a "binFileName" or "binFileSuffix"
 * that is not a string without escapes, or a "jsonList" other than json_list's refuses it. */
static int kernel_json(const unsigned char *data, Py_ssize_t size, KernelFields *out) {
    Cursor s = {data, data + size, 1};
    memset(out, 0, sizeof(*out));
    skip_space(&s);
    if (s.p >= s.end || *s.p != '{')
        return -1;
    s.p++;
    skip_space(&s);
    if (s.p < s.end && *s.p == '}')
        s.p++;
    else
        for (;;) {
            const unsigned char *key;
            Py_ssize_t key_len;
            if (object_key(&s, &key, &key_len))
                return -1;
            if (key_is(key, key_len, "binFileName")) {
                out->names++;
                if (plain_string(&s, &out->bin_name, &out->bin_name_len))
                    return -1;
            } else if (key_is(key, key_len, "binFileSuffix")) {
                out->suffixes++;
                if (plain_string(&s, &out->bin_suffix, &out->bin_suffix_len))
                    return -1;
            } else if (key_is(key, key_len, "jsonList")) {
                if (out->lists++ || json_list(&s, out))
                    return -1;
                s.depth = 1;
            } else if (scan_value(&s)) {
                return -1;
            }
            int more = next_member(&s, '}');
            if (more < 0)
                return -1;
            if (!more)
                break;
        }
    skip_space(&s);
    if (s.p != s.end)
        return -1; /* text after the value: nlohmann's non-strict read, the Python way */
    return 0;
}

/* A plain kernel json names its binary once and lists nothing. */
static int names_its_binary(const KernelFields *f) { return f->lists == 0 && f->names == 1 && f->suffixes == 1; }

/* Read `name` (in `dir_fd`, opened with `flags`) into *buffer, growing it: 0 when it holds
 * exactly `size` bytes. */
static int read_exactly(int dir_fd, const char *name, int flags, long long size, unsigned char **buffer,
                        size_t *capacity) {
    if ((size_t)size + 1 > *capacity) {
        unsigned char *grown = realloc(*buffer, (size_t)size + 1);
        if (!grown)
            return -2;
        *buffer = grown;
        *capacity = (size_t)size + 1;
    }
    Py_ssize_t got = 0;
    int fd;
    unsigned char *into = *buffer;
    Py_BEGIN_ALLOW_THREADS
    fd = openat(dir_fd, name, flags);
    if (fd >= 0) {
        while ((size_t)got < (size_t)size + 1) {
            ssize_t n = read(fd, into + got, (size_t)size + 1 - (size_t)got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (n < 0)
                    got = -1;
                break;
            }
            got += n;
        }
        close(fd);
    }
    Py_END_ALLOW_THREADS
    return fd >= 0 && got == size ? 0 : -1;
}

/* A plain name in the json's own dir: not empty, no "/" and no NUL, not "." or "..". */
static int plain_name(const char *name, Py_ssize_t len) {
    return len > 0 && !memchr(name, '/', (size_t)len) && !memchr(name, 0, (size_t)len) &&
           !(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.');
}

/* lstat size of a file in `dir_fd` that exists and is not a directory, else -1. With `regular`,
 * only a regular file. */
static long long size_at(int dir_fd, const char *name, int regular) {
    struct stat st;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW);
    Py_END_ALLOW_THREADS
    if (rc != 0 || S_ISDIR(st.st_mode) || (regular && !S_ISREG(st.st_mode)))
        return -1;
    return (long long)st.st_size;
}

/* "<binFileName><binFileSuffix>" of `f` as a C string (PyMem_Malloc'd), or NULL (not plain,
 * or no memory: then a Python error is set). */
static char *binary_name(const KernelFields *f) {
    Py_ssize_t len = f->bin_name_len + f->bin_suffix_len;
    char *rel = PyMem_Malloc((size_t)len + 1);
    if (!rel) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(rel, f->bin_name, (size_t)f->bin_name_len);
    memcpy(rel + f->bin_name_len, f->bin_suffix, (size_t)f->bin_suffix_len);
    rel[len] = 0;
    if (!plain_name(rel, len)) {
        PyMem_Free(rel);
        return NULL;
    }
    return rel;
}

/* The members a mix kernel's listed jsons add, as cleanup._resolve adds them: per listed json,
 * its name and size, then its binary's. NULL with no error set when one is not plain (a
 * missing or odd file, a json that is not a plain kernel json): the Python way. */
static PyObject *listed_members(int dir_fd, const KernelFields *main_fields, int open_flags, long long max_bytes,
                                unsigned char **buffer, size_t *capacity) {
    /* The names point into the main json's text, which the reads below must not overwrite. */
    char *names[MAX_LISTED];
    int count = main_fields->listed;
    PyObject *members = PyList_New(0);
    if (!members)
        return NULL;
    for (int k = 0; k < count; k++)
        names[k] = NULL;
    int ok = 1;
    for (int k = 0; k < count && ok; k++) {
        Py_ssize_t len = main_fields->listed_len[k];
        names[k] = PyMem_Malloc((size_t)len + 1);
        if (!names[k]) {
            PyErr_NoMemory();
            ok = 0;
            break;
        }
        memcpy(names[k], main_fields->listed_name[k], (size_t)len);
        names[k][len] = 0;
        if (!plain_name(names[k], len))
            ok = 0;
    }
    for (int k = 0; k < count && ok; k++) {
        long long sub_size = size_at(dir_fd, names[k], 1);
        KernelFields sub;
        if (sub_size <= 0 || sub_size > max_bytes) {
            ok = 0;
            break;
        }
        int rc = read_exactly(dir_fd, names[k], open_flags, sub_size, buffer, capacity);
        if (rc == -2) {
            PyErr_NoMemory();
            ok = 0;
            break;
        }
        if (rc || kernel_json(*buffer, (Py_ssize_t)sub_size, &sub) || !names_its_binary(&sub)) {
            ok = 0;
            break;
        }
        char *bin = binary_name(&sub);
        if (!bin) {
            ok = 0;
            break;
        }
        long long bin_size = size_at(dir_fd, bin, 0);
        PyObject *item = bin_size < 0 ? NULL : Py_BuildValue("(sLsL)", names[k], sub_size, bin, bin_size);
        PyMem_Free(bin);
        if (!item) {
            ok = 0;
            break;
        }
        for (Py_ssize_t m = 0; m < 4 && ok; m++)
            if (PyList_Append(members, PyTuple_GET_ITEM(item, m)) < 0)
                ok = 0;
        Py_DECREF(item);
    }
    for (int k = 0; k < count; k++)
        PyMem_Free(names[k]);
    if (!ok) {
        Py_DECREF(members);
        return NULL;
    }
    return members;
}

/* Attribute names of cleanup.Group (its __slots__), interned at import. */
static PyObject *attr_folder, *attr_files, *attr_atime, *attr_notes, *empty_tuple;

/* A cleanup.Group as Group._of makes it: no note. Steals `files`. */
static PyObject *make_group(PyTypeObject *group_type, PyObject *folder, PyObject *files, PyObject *atime) {
    if (!files)
        return NULL;
    PyObject *group = group_type->tp_alloc(group_type, 0);
    if (!group || PyObject_SetAttr(group, attr_folder, folder) < 0 || PyObject_SetAttr(group, attr_files, files) < 0 ||
        PyObject_SetAttr(group, attr_atime, atime) < 0 || PyObject_SetAttr(group, attr_notes, empty_tuple) < 0) {
        Py_XDECREF(group);
        group = NULL;
    }
    Py_DECREF(files);
    return group;
}

/* kernel_groups(dir_fd, names, sizes, atimes, open_flags, max_bytes, folder, group_type, stems) -> list
 *
 * For each json name of `names` in the directory `dir_fd` (`folder` is its path), with the
 * size and the access second the walk saw: open it (`open_flags`), read it whole, and when it
 * is exactly that size and a strictly valid kernel json (kernel_json) whose group is plain,
 * give the cleanup.Group (`group_type`) that cleanup._resolve would give, without a note:
 * - a json naming its binary "<binFileName><binFileSuffix>" (a plain name, not a directory, in
 *   the json's own dir): members (json, size, binary, size), the binary as the shared object
 *   `stems[suffix]` (cleanup._StemSuffix) when binFileName is the json's own name without
 *   ".json" (a suffix `stems` does not hold yet is left to Python, which adds it);
 * - a mix kernel (a "jsonList" of {"jsonFileName": name} objects): the json, then per listed
 *   json its name and size and its binary's, each listed json a plain kernel json in the same
 *   dir (what the main json names itself is not deleted).
 * Anything else gives None, and so does a name ending in "_pre.json" (cleanup's rule for
 * those: never read). */
/* The reading state of one call: the buffer the jsons are read into, and the rules passed in. */
typedef struct {
    unsigned char *buffer;
    size_t capacity;
    int open_flags;
    long long max_bytes;
    PyTypeObject *group_type;
    PyObject *stems;
} Reader;

/* The Group of the json `item` (size `size_obj`, access second `atime`) in `dir_fd` (`folder`),
 * as kernel_groups describes it: a new reference; NULL without an error when the json is not
 * plain (the Python way), NULL with an error when something failed. */
static PyObject *one_group(Reader *r, int dir_fd, PyObject *folder, PyObject *item, PyObject *size_obj,
                           PyObject *atime) {
    long long size = PyLong_AsLongLong(size_obj);
    if (size == -1 && PyErr_Occurred())
        return NULL;
    if (!PyUnicode_Check(item) || size <= 0 || size > r->max_bytes)
        return NULL;
    Py_ssize_t name_len;
    const char *name = PyUnicode_AsUTF8AndSize(item, &name_len);
    if (!name) { /* not valid UTF-8 (surrogateescape): the Python way */
        PyErr_Clear();
        return NULL;
    }
    if ((Py_ssize_t)strlen(name) != name_len || (name_len >= 9 && memcmp(name + name_len - 9, "_pre.json", 9) == 0))
        return NULL;
    Py_INCREF(item);
    int rc = read_exactly(dir_fd, name, r->open_flags, size, &r->buffer, &r->capacity);
    Py_DECREF(item);
    if (rc == -2)
        return PyErr_NoMemory();
    KernelFields fields;
    if (rc || kernel_json(r->buffer, (Py_ssize_t)size, &fields))
        return NULL;
    PyObject *files = NULL;
    if (fields.lists == 1) {
        PyObject *members = listed_members(dir_fd, &fields, r->open_flags, r->max_bytes, &r->buffer, &r->capacity);
        if (members) {
            files = PyTuple_New(2 + PyList_GET_SIZE(members));
            if (files) {
                Py_INCREF(item);
                PyTuple_SET_ITEM(files, 0, item);
                Py_INCREF(size_obj);
                PyTuple_SET_ITEM(files, 1, size_obj);
                for (Py_ssize_t m = 0; m < PyList_GET_SIZE(members); m++) {
                    PyObject *member = PyList_GET_ITEM(members, m);
                    Py_INCREF(member);
                    PyTuple_SET_ITEM(files, 2 + m, member);
                }
            }
            Py_DECREF(members);
        }
    } else if (names_its_binary(&fields)) {
        char *rel = binary_name(&fields);
        if (rel) {
            long long bin_size = size_at(dir_fd, rel, 0);
            int same_stem = name_len > 5 && memcmp(name + name_len - 5, ".json", 5) == 0 &&
                            fields.bin_name_len == name_len - 5 &&
                            memcmp(fields.bin_name, name, (size_t)fields.bin_name_len) == 0;
            if (bin_size >= 0 && same_stem) {
                PyObject *suffix = PyUnicode_FromStringAndSize((const char *)fields.bin_suffix, fields.bin_suffix_len);
                PyObject *stem = suffix ? PyDict_GetItemWithError(r->stems, suffix) : NULL;
                Py_XDECREF(suffix);
                if (stem)
                    files = Py_BuildValue("(OOOL)", item, size_obj, stem, bin_size);
            } else if (bin_size >= 0) {
                files = Py_BuildValue("(OOsL)", item, size_obj, rel, bin_size);
            }
            PyMem_Free(rel);
        }
    }
    if (!files)
        return NULL;
    return make_group(r->group_type, folder, files, atime);
}

static PyObject *kernel_groups(PyObject *self, PyObject *args) {
    (void)self;
    int dir_fd;
    PyObject *names, *sizes, *atimes, *folder;
    Reader r = {NULL, 0, 0, 0, NULL, NULL};
    if (!PyArg_ParseTuple(args, "iO!O!O!iLUO!O!", &dir_fd, &PyList_Type, &names, &PyList_Type, &sizes, &PyList_Type,
                          &atimes, &r.open_flags, &r.max_bytes, &folder, &PyType_Type, &r.group_type, &PyDict_Type,
                          &r.stems))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    if (PyList_GET_SIZE(sizes) != count || PyList_GET_SIZE(atimes) != count) {
        PyErr_SetString(PyExc_ValueError, "one size and one access time per name");
        return NULL;
    }
    PyObject *out = PyList_New(count);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *group = one_group(&r, dir_fd, folder, PyList_GET_ITEM(names, i), PyList_GET_ITEM(sizes, i),
                                    PyList_GET_ITEM(atimes, i));
        if (!group && PyErr_Occurred()) {
            free(r.buffer);
            Py_DECREF(out);
            return NULL;
        }
        if (!group) {
            Py_INCREF(Py_None);
            group = Py_None;
        }
        PyList_SET_ITEM(out, i, group);
    }
    free(r.buffer);
    return out;
}

/* ---- read_step ------------------------------------------------------------------------------ */

typedef struct {
    PyObject *folder; /* borrowed: the candidate's own */
    Py_ssize_t index;
} Pending;

static int compare_pending(const void *a, const void *b) {
    const Pending *x = a, *y = b;
    if (x->folder != y->folder)
        return x->folder < y->folder ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The dir `rel` (a path below the dir `root`, components separated by "/") opened one component
 * at a time without following a symlink, as cleanup._GroupReader._open_dir does; -1 when it
 * cannot be. */
static int open_below(int root, const char *rel) {
    if (!*rel)
        return root;
    char part[4096];
    int fd = root;
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || len >= sizeof part) {
            if (fd != root)
                close(fd);
            return -1;
        }
        memcpy(part, p, len);
        part[len] = 0;
        int next;
        Py_BEGIN_ALLOW_THREADS
        next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        Py_END_ALLOW_THREADS
        if (fd != root)
            close(fd);
        if (next < 0)
            return -1;
        fd = next;
        p += len;
        if (*p == '/')
            p++;
    }
    return fd;
}

/* read_step(root_fd, soc_dir, candidates, cache, should_stop, stopped, open_flags, max_bytes,
 *           group_type, stems) -> (groups, stopped, read)
 *
 * cleanup._GroupReader.groups_of for one process, in one call: `candidates` are (access second,
 * dir path, json name, walk size) in CANN's order; a candidate whose group `cache[dir][name]`
 * holds already is taken from there; before each other one `should_stop` (None: never) is
 * called, and the first True (or `stopped` given true) ends the list there, `stopped` then
 * true. The others are read directory by directory (each dir opened below `root_fd`, the SoC
 * dir `soc_dir`, without following a symlink) as kernel_groups reads them; each Group made is
 * put into the cache. `groups` has one item per candidate taken: its Group, or None where the
 * Python way must read it (not plain, or its dir could not be opened). `read`: the groups made. */
static PyObject *read_step(PyObject *self, PyObject *args) {
    (void)self;
    int root_fd, stopped;
    PyObject *soc_dir, *candidates, *cache, *should_stop;
    Reader r = {NULL, 0, 0, 0, NULL, NULL};
    if (!PyArg_ParseTuple(args, "iUO!O!OpiLO!O!", &root_fd, &soc_dir, &PyList_Type, &candidates, &PyDict_Type, &cache,
                          &should_stop, &stopped, &r.open_flags, &r.max_bytes, &PyType_Type, &r.group_type,
                          &PyDict_Type, &r.stems))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(candidates), taken = 0, pending_count = 0, made = 0;
    Py_ssize_t soc_len = PyUnicode_GET_LENGTH(soc_dir);
    PyObject *out = PyList_New(0);
    Pending *pending = PyMem_Malloc((count ? (size_t)count : 1) * sizeof(Pending));
    if (!out || !pending)
        goto fail;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *candidate = PyList_GET_ITEM(candidates, i);
        if (!PyTuple_Check(candidate) || PyTuple_GET_SIZE(candidate) != 4) {
            PyErr_SetString(PyExc_TypeError, "a candidate is (access second, dir, name, size)");
            goto fail;
        }
        PyObject *folder = PyTuple_GET_ITEM(candidate, 1), *name = PyTuple_GET_ITEM(candidate, 2);
        PyObject *in_dir = PyDict_GetItemWithError(cache, folder);
        if (!in_dir) {
            if (PyErr_Occurred())
                goto fail;
            in_dir = PyDict_New();
            if (!in_dir || PyDict_SetItem(cache, folder, in_dir) < 0) {
                Py_XDECREF(in_dir);
                goto fail;
            }
            Py_DECREF(in_dir); /* the cache holds it */
        }
        PyObject *known = PyDict_GetItemWithError(in_dir, name);
        if (!known && PyErr_Occurred())
            goto fail;
        if (!known) {
            if (!stopped && should_stop != Py_None) {
                PyObject *answer = PyObject_CallNoArgs(should_stop);
                if (!answer)
                    goto fail;
                stopped = PyObject_IsTrue(answer);
                Py_DECREF(answer);
                if (stopped < 0)
                    goto fail;
            }
            if (stopped)
                break;
            pending[pending_count].folder = folder;
            pending[pending_count].index = i;
            pending_count++;
            known = Py_None;
        }
        if (PyList_Append(out, known) < 0)
            goto fail;
        taken++;
    }
    qsort(pending, (size_t)pending_count, sizeof(Pending), compare_pending);
    for (Py_ssize_t k = 0; k < pending_count;) {
        PyObject *folder = pending[k].folder;
        Py_ssize_t run_end = k;
        while (run_end < pending_count && pending[run_end].folder == folder)
            run_end++;
        int dir_fd = -1;
        if (PyUnicode_Check(folder) && PyUnicode_GET_LENGTH(folder) >= soc_len &&
            PyUnicode_Tailmatch(folder, soc_dir, 0, soc_len, -1) == 1) {
            Py_ssize_t folder_len = PyUnicode_GET_LENGTH(folder);
            if (folder_len == soc_len) {
                dir_fd = root_fd;
            } else if (PyUnicode_READ_CHAR(folder, soc_len) == '/') {
                PyObject *rel = PyUnicode_Substring(folder, soc_len + 1, folder_len);
                Py_ssize_t rel_len = 0;
                const char *rel_text = rel ? PyUnicode_AsUTF8AndSize(rel, &rel_len) : NULL;
                if (rel_text && (Py_ssize_t)strlen(rel_text) == rel_len)
                    dir_fd = open_below(root_fd, rel_text);
                if (!rel_text)
                    PyErr_Clear(); /* not UTF-8 (surrogateescape): the Python way */
                Py_XDECREF(rel);
            }
        }
        PyObject *in_dir = PyDict_GetItemWithError(cache, folder);
        for (; dir_fd >= 0 && in_dir && k < run_end; k++) {
            PyObject *candidate = PyList_GET_ITEM(candidates, pending[k].index);
            PyObject *name = PyTuple_GET_ITEM(candidate, 2);
            PyObject *group = one_group(&r, dir_fd, folder, name, PyTuple_GET_ITEM(candidate, 3),
                                        PyTuple_GET_ITEM(candidate, 0));
            if (!group) {
                if (PyErr_Occurred()) {
                    if (dir_fd != root_fd)
                        close(dir_fd);
                    goto fail;
                }
                continue; /* stays None: the Python way */
            }
            int failed = PyDict_SetItem(in_dir, name, group) < 0 ||
                         PyList_SetItem(out, pending[k].index, group) < 0; /* steals group */
            if (failed) {
                if (dir_fd != root_fd)
                    close(dir_fd);
                goto fail;
            }
            made++;
        }
        if (dir_fd >= 0 && dir_fd != root_fd)
            close(dir_fd);
        k = run_end;
    }
    PyMem_Free(pending);
    free(r.buffer);
    return Py_BuildValue("(NNn)", out, PyBool_FromLong(stopped), made);
fail:
    PyMem_Free(pending);
    free(r.buffer);
    Py_XDECREF(out);
    return NULL;
}

/* ---- name_mask ----------------------------------------------------------------------------- */

/* name_mask(names, shortest, suffixes, suffix_longer_than) -> bytes
 *
 * A byte per name of `names`: 1 when it is longer than `shortest` characters and does not (when
 * longer than `suffix_longer_than`) end with one of `suffixes` (a tuple of str), as
 * scanner._is_candidate decides with the rule's numbers and suffixes it passes. Lengths are in
 * code points, as Python's len(). */
static PyObject *name_mask(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *names, *suffixes;
    Py_ssize_t shortest, suffix_longer_than;
    if (!PyArg_ParseTuple(args, "O!nO!n", &PyList_Type, &names, &shortest, &PyTuple_Type, &suffixes,
                          &suffix_longer_than))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    PyObject *out = PyBytes_FromStringAndSize(NULL, count);
    if (!out)
        return NULL;
    char *mask = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "names must be str");
            return NULL;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(name);
        int keep = len > shortest;
        for (Py_ssize_t k = 0; keep && len > suffix_longer_than && k < PyTuple_GET_SIZE(suffixes); k++) {
            Py_ssize_t ends = PyUnicode_Tailmatch(name, PyTuple_GET_ITEM(suffixes, k), 0, PY_SSIZE_T_MAX, 1);
            if (ends < 0) {
                Py_DECREF(out);
                return NULL;
            }
            keep = !ends;
        }
        mask[i] = (char)keep;
    }
    return out;
}

/* ---- order_keys ---------------------------------------------------------------------------- */

typedef struct {
    long long second;
    unsigned long long low; /* chunk << pos_bits | position */
} OrderKey;

static int compare_keys(const void *a, const void *b) {
    const OrderKey *x = a, *y = b;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    return x->low < y->low ? -1 : x->low > y->low;
}

/* order_keys(chunks, pos_bits, chunk_bits) -> (keys, ties) | None
 *
 * The sort keys scanner.SocUsage.ordered_candidates makes, sorted: for chunk c of `chunks`
 * (each (access times: a buffer of C doubles, mask: bytes or None)) and each position p whose
 * mask byte is not 0 (every position without a mask), the key
 * int(atime) * 2**(pos_bits + chunk_bits) + c * 2**pos_bits + p (int() as Python's, towards
 * zero). `ties` has a byte per neighbouring pair of the sorted keys: 1 when they share a second.
 * None when a key would not fit in 63 bits (then Python makes them). */
static PyObject *order_keys(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *chunks;
    int pos_bits, chunk_bits;
    if (!PyArg_ParseTuple(args, "O!ii", &PyList_Type, &chunks, &pos_bits, &chunk_bits))
        return NULL;
    int shift = pos_bits + chunk_bits;
    if (pos_bits < 0 || chunk_bits < 0 || shift > 40)
        Py_RETURN_NONE;
    long long limit = 1LL << (62 - shift); /* |second| below it: the key fits */
    Py_ssize_t chunk_count = PyList_GET_SIZE(chunks);
    size_t total = 0, filled = 0;
    OrderKey *keys = NULL;
    PyObject *result = NULL;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            keys = PyMem_Malloc((total ? total : 1) * sizeof(OrderKey));
            if (!keys)
                return PyErr_NoMemory();
        }
        for (Py_ssize_t c = 0; c < chunk_count; c++) {
            PyObject *chunk = PyList_GET_ITEM(chunks, c);
            if (!PyTuple_Check(chunk) || PyTuple_GET_SIZE(chunk) != 2) {
                PyErr_SetString(PyExc_TypeError, "a chunk is (access times, mask or None)");
                goto done;
            }
            Py_buffer times, mask;
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(chunk, 0), &times, PyBUF_SIMPLE) < 0)
                goto done;
            PyObject *mask_obj = PyTuple_GET_ITEM(chunk, 1);
            int has_mask = mask_obj != Py_None;
            if (has_mask && PyObject_GetBuffer(mask_obj, &mask, PyBUF_SIMPLE) < 0) {
                PyBuffer_Release(&times);
                goto done;
            }
            Py_ssize_t count = times.len / (Py_ssize_t)sizeof(double);
            const double *atimes = times.buf;
            const char *wanted = has_mask ? mask.buf : NULL;
            int bad = has_mask && mask.len != count;
            for (Py_ssize_t p = 0; p < count && !bad; p++) {
                if (wanted && !wanted[p])
                    continue;
                if (pass == 0) {
                    total++;
                    continue;
                }
                double a = atimes[p];
                if (!(a > -(double)limit && a < (double)limit)) {
                    bad = 2;
                    break;
                }
                keys[filled].second = (long long)a;
                keys[filled].low = ((unsigned long long)c << pos_bits) | (unsigned long long)p;
                filled++;
            }
            PyBuffer_Release(&times);
            if (has_mask)
                PyBuffer_Release(&mask);
            if (bad == 1) {
                PyErr_SetString(PyExc_ValueError, "a mask has one byte per access time");
                goto done;
            }
            if (bad == 2 || (unsigned long long)c >= (1ULL << chunk_bits) || count > (1LL << pos_bits)) {
                result = Py_None;
                Py_INCREF(result);
                goto done;
            }
        }
    }
    qsort(keys, filled, sizeof(OrderKey), compare_keys);
    PyObject *list = PyList_New((Py_ssize_t)filled);
    PyObject *ties = PyBytes_FromStringAndSize(NULL, filled ? (Py_ssize_t)filled - 1 : 0);
    if (!list || !ties) {
        Py_XDECREF(list);
        Py_XDECREF(ties);
        goto done;
    }
    char *tie = PyBytes_AS_STRING(ties);
    for (size_t i = 0; i < filled; i++) {
        PyObject *key = PyLong_FromLongLong(keys[i].second * (1LL << shift) + (long long)keys[i].low);
        if (!key) {
            Py_DECREF(list);
            Py_DECREF(ties);
            goto done;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, key);
        if (i + 1 < filled)
            tie[i] = keys[i].second == keys[i + 1].second;
    }
    result = Py_BuildValue("(NN)", list, ties);
done:
    PyMem_Free(keys);
    return result;
}

static PyMethodDef methods[] = {
    {"plain_chunk", plain_chunk, METH_VARARGS, "lstat a chunk of names; aggregates when all are plain files"},
    {"kernel_groups", kernel_groups, METH_VARARGS, "read the plain kernel jsons of a directory"},
    {"read_step", read_step, METH_VARARGS, "a prediction step's groups, read by directory"},
    {"order_keys", order_keys, METH_VARARGS, "the candidates' sort keys, sorted"},
    {"name_mask", name_mask, METH_VARARGS, "a byte per name: long enough and not ending with a suffix"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    attr_folder = PyUnicode_InternFromString("folder");
    attr_files = PyUnicode_InternFromString("files");
    attr_atime = PyUnicode_InternFromString("atime");
    attr_notes = PyUnicode_InternFromString("notes");
    empty_tuple = PyTuple_New(0);
    if (!attr_folder || !attr_files || !attr_atime || !attr_notes || !empty_tuple)
        return NULL;
    return PyModule_Create(&module);
}
