"""Where a failure no tool parser explained is, and what kind it is, from the block itself.

The locator finds the block that explains a failed step (:mod:`.locator`); for a tool without a parser of its
own, that block still says where: compilers, linters, test runners and stack traces all print
``path:line[:col]``. This reads the first such place in the block (the best line first, then the block in
order), and names its kind from what the step ran and the block's own words (:func:`block_kind`, over the
tables of :mod:`.tools`):

- a diagnostic (``path:line[:col]: message``) is what the step's tool reports: ``lint`` for a linter,
  ``type_error`` for a type checker, ``test_failure`` when the step ran the tests (``go test``, ``npm test``,
  ``pytest``, ``ctest``, ``mvn test``, ...), else a ``build_error``;
- test runners' own verdict words (``--- FAIL``, ``FAILED``, ``not ok``, an assertion) are a ``test_failure``,
  a package manager's (``ENOTCACHED``, ``no matching package``) a ``dependency``, an uncaught exception a
  ``crash``.

Paths must look like files (a name with an extension); hosts in URLs, versions and times are not places.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from gauntlet.ingest.log.draft import Draft, Line
from gauntlet.ingest.log.text import repo_path
from gauntlet.ingest.log.tools import (
    DATA_FILE,
    INTERPRETERS,
    LINTERS,
    LOCKS,
    NOTED,
    RULE_CODE,
    RULE_NAME,
    SECRET,
    manager_manifest,
    markers,
    step_kind,
    verdict_name,
)
from gauntlet.ingest.paths import Checkout, repo_relative
from gauntlet.models import Kind

#: A file, and the line and column where it has them.
Place = tuple[str, int | None, int | None]

__all__ = [
    "LINTERS",
    "audited_manifest",
    "block_kind",
    "checked_file",
    "echoed_file",
    "failed_tests",
    "file_alone",
    "first_place",
    "in_checkout",
    "in_library",
    "lint_rows",
    "locked_by",
    "lone_place",
    "manifest",
    "named_by_command",
    "place_block",
    "project_place",
    "report_rows",
    "same_file",
]

#: Files known by a name without an extension (hadolint's ``Dockerfile:3 DL3008 ...``); not a Makefile, which
#: make names in its driver's ``*** [Makefile:2: all] Error 1`` after the compiler's error.
_NAMED_FILES = (
    r"(?:Dockerfile|Containerfile|Jenkinsfile|Gemfile|Rakefile|Vagrantfile|Justfile|SConstruct|SConscript|Snakefile"
    r"|Podfile|Brewfile|Fastfile|Tiltfile|Earthfile|Procfile|Berksfile|Guardfile|Puppetfile"
    # dotfiles checkers read: ``.env:2 Found spaced value``
    r"|\.env(?:\.[a-z]{1,12})?|\.gitignore|\.dockerignore|\.npmrc|\.editorconfig|\.gitattributes|\.htaccess)"
)
#: ``path:line[:col]`` (or GNU's ``path:line.col[-[line.]col]``), ``path:[line,col]`` (Maven, Kotlin),
#: ``path(line,col)`` (MSBuild), ``path: line N`` (sh, bash), ``"path", line N`` (a Python frame), ``path line N``
#: (Perl, Tcl), or ``file.o:(.text+0x1a)`` (a linker names only the file): a file name has an extension, or is one
#: of :data:`_NAMED_FILES`.
_PLACE = re.compile(
    r"(?<![\w/.\\:@-])(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?(?:[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}"
    r"|(?<![\w.-])" + _NAMED_FILES + r"))"
    r"(?::(?P<line>\d{1,7})(?::(?P<column>\d{1,5})|\.(?P<dcolumn>\d{1,5})(?:-\d{1,7}(?:\.\d{1,5})?)?|-\d{1,7})?"
    r"(?=[:\s,)\]'\"]|$)"  # ``path:5-14``: a range of lines (checkov's ``File: /infra/main.tf:5-14``); quoted
    # ``path(12):`` (D, MSVC), and in brackets: Qt Test's ``Loc: [../tests/tst_cart.cpp(17)]``
    r"|:\[(?P<bline>\d{1,7}),(?P<bcolumn>\d{1,5})\]|\((?P<pline>\d{1,7})(?:, ?(?P<pcolumn>\d{1,5})\)|\)(?=:\s|\]))"
    # ``"a.py", line 3``, ``a.sh: line 3``, rsyslogd's ``a.conf, on or before line 5``
    r"|(?:\"?,|:| on| at|,? on or before)? line (?P<wline>\d{1,7})\b|(?=:\(\.text)"
    r"| \(line (?P<qline>\d{1,7})\)"  # pip's ``(from -r requirements.txt (line 2))``
    r"|@(?P<aline>\d{1,7}):(?P<acolumn>\d{1,5})(?=[:\s]|$)"  # fixit's ``shop/cart.py@4:11 Rule: ...``
    # Gambit's ``*** ERROR IN "src/cart.scm"@4.1 -- ...``, the Nu validator's ``"file:/w/a.html":11.1-11.19: error:``
    r"|\"[@:](?P<gline>\d{1,7})\.(?P<gcolumn>\d{1,5})\b"
    r"|: (?P<hline>\d{1,7}): (?=\S)"  # happy's ``grammar/Parser.y: 18: unknown identifier 'Factor'``
    r"|:line (?P<nline>\d{1,7})\b"  # .NET's stack frames: ``at Cart.Sums() in /src/CartTests.cs:line 12``
    r"| \[(?P<kline>\d{1,7}):(?P<kcolumn>\d{1,5}) - \d{1,7}:\d{1,5}\]"  # a span: jscpd's ``cart.js [5:26 - 10:39]``
    # webpack's ``ERROR in ./src/a.js 1:18-35``, dart-sass's ``styles/a.scss 4:10  root stylesheet``, promtool's
    # ``rules/alerts.yml: 5:15: group "cart" ...``, rollup's ``src/main.js (1:9)``
    r"|:? \(?(?P<sline>\d{1,7}):(?P<scolumn>\d{1,5})(?:-\d+)?\)?(?=\s|:\s|:?$))"
)
#: A file URL's scheme before its path (``file:///w/a.js``, ``file:/w/a.html``, ``file:D:\\a\\a.html``).
_FILE_URI = re.compile(r"\bfile:(?://)?(?=/|[A-Za-z]:[\\/])")
#: :data:`_PLACE`'s groups of a line and of a column, one per shape.
_PLACE_LINES = ("line", "bline", "pline", "wline", "sline", "aline", "nline", "kline", "qline", "gline", "hline")
_PLACE_COLUMNS = ("column", "dcolumn", "bcolumn", "pcolumn", "scolumn", "acolumn", "kcolumn", "gcolumn")
#: A file without an extension in a folder, in a diagnostic's ``path:line:col: message`` (visudo's
#: ``sudoers.d/deploy:3:59: syntax error``, caddy's ``deploy/Caddyfile:3: unrecognized``) or ``path: line N:
#: message`` (sshd's ``etc/sshd_config: line 2: Bad``).
_BARE_PLACE = re.compile(
    r"(?<![\w/.\\:@-])(?P<path>(?:[\w.+-]{1,100}/){1,20}[\w+-][\w+-]{0,100})"
    r"(?::(?P<line>\d{1,7})(?::(?P<column>\d{1,5}))?|: line (?P<wline>\d{1,7})):\s"
)
#: A parser's ``path: message (line:col)`` (babel, acorn, prettier: ``SyntaxError: src/a.js: Unexpected token
#: (2:41)``): the place closes the line.
_TRAILING = re.compile(
    r"(?<![\w/.\\:@-])(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}):\s"
    r"[^()]{1,300}\((?P<line>\d{1,7}):(?P<column>\d{1,5})\)$"
)
#: A place with its line first: acorn's and ejs-lint's ``Unexpected token (5:13) in views/list.ejs``.
_LINE_IN_FILE = re.compile(
    r"\((?P<line>\d{1,7}):(?P<column>\d{1,5})\) in "
    r"(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})(?![\w/\\-])"
)
#: A place in words, its line first: byacc's ``line 16 of "src/calc.y"``, ``error on line 5 in file config.xml``.
_LINE_OF_FILE = re.compile(
    r"\b(?i:line) (?P<line>\d{1,7}) (?i:of|in) (?:file:? )?[\"'`]?"
    r"(?P<path>(?:[A-Za-z]:[\\/]|/)?(?:[\w.+-]{1,100}[\\/]){0,20}[\w+-]{1,100}\.[A-Za-z][A-Za-z0-9]{0,9})(?![\w/\\-])"
)
#: A quoted path and its line: bmake's ``"/w/Makefile" line 4: Malformed conditional`` (any file, a Makefile too).
#: In other quotes, and a word before the line: yard's ``in file `lib/cart.rb` near line 7``, Test::NoTabs' ``No tabs
#: in 'lib/a.pm' on line 6``, jflex's ``"a.flex" (line 16)``.
_QUOTED_LINE = re.compile(
    r"[\"'`](?P<path>[^\"'`\s]{0,300}[./\\][^\"'`\s]{1,300})[\"'`] \(?(?:(?:near|on|at) )?line (?P<line>\d{1,7})\b"
)
#: A severity or a program glued to the place it opens (GLib's ``ERROR:tests/a.c:13:test_total: assertion
#: failed``, thrift's ``[ERROR:/w/idl/cart.thrift:11]``, psql's ``psql:migrations/002.sql:4: ERROR:``): read as
#: if a space followed it.
_GLUED_SEVERITY = re.compile(
    r"(?<![\w-])(ERROR|FAILURE|FATAL|WARNING|Error|Warning|error|warning):(?=[\w./])"
    r"|(?<![\w/.-])([a-z][\w-]{1,30}):(?=[\w.][\w./-]{0,200}\.[A-Za-z]\w{0,9}:\d)"
)
#: A file named alone (``would reformat /home/runner/work/x/x/src/a.py``, ``[warn] src/c.js``), or with the test
#: it holds (avocado's ``tests/test_cart.py:Cart.test_total: FAIL``).
_FILE = re.compile(
    r"(?<![\w/.\\:@-])(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})"
    r"(?![\w/\\(@-]|:(?![A-Za-z_][\w.]{0,200}: )[^\s:]|\.\w)"
)
#: A JVM stack frame in the JDK's or a common library's packages (the frame names a class, not a path), with
#: or without its ``at`` (JUnit's console launcher prints none) and its module (``java.base/jdk.internal...``).
_JVM_LIBRARY_FRAME = re.compile(
    r"^\s*(?:at )?(?:[\w$.]+/)?(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|org\.junit|junit|org\.apache"
    r"|org\.gradle|org\.springframework|org\.testng|org\.opentest4j|org\.assertj|worker\.org\.gradle|groovy|org\.codehaus"
    r"|org\.spockframework|io\.kotest|org\.hamcrest|com\.google\.common|com\.google\.truth|org\.mockito|org\.easymock"
    r"|io\.mockk|net\.bytebuddy)\."
)
#: A file opening a line, then its line in words further on: Python's json module under pre-commit's
#: ``data/prices.json: Failed to json decode (Expecting ...: line 4 column 1 (char 31))``; or a report's keys
#: on one line: credsweeper's ``path: shop/settings.py | line_num: 4``, ``file=a.py line=3``.
_PATH_THEN_LINE = re.compile(
    r"^\s*(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}): .{0,300}?"
    r"\bline (?P<line>\d{1,7})(?:,? col(?:umn)? (?P<column>\d{1,5}))?\b"
    r"|\b(?:path|file|filename)[:=] ?['\"]?"
    r"(?P<kpath>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}?[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})['\"]?[ ,|;]{1,6}"
    r"(?:line|line_num|line_number|lineno|start_line)[:=] ?(?P<kline>\d{1,7})\b"
)
#: A line without a digit names no line number (a cheap look before the place patterns).
_DIGIT = re.compile(r"\d")
_STRICT = re.compile(r"(?i)warnings? (?:treated|are treated|turned into) as errors")
_STRICT_STEP = re.compile(
    r"(?:^|\s)(?:-W|-Werror|--fail-on-warnings?|--strict|--max-warnings[= ]0|--failure-level[= ](?i:warn(?:ing)?)"
    r"|--warnings-as-errors|[-/]warnaserror[+:]?|-Xfatal-warnings|--fatal-warnings|-D warnings|--deny[= ]warnings)"
    r"(?=\s|$)"
)
_NOTE = re.compile(r"(?i)[:\s]note:")
_MINOR = re.compile(r"(?i)[:\s](?:warning|note|info|hint)(?:\[\w+\])?:")
_MISSING = re.compile(
    r"(?i)no such file|not found|does(?: not|n't) exist|cannot (?:open|find|stat)|can't (?:open|find|resolve)"
)
#: A line that says the tool writes the file it names (ct_run's ``Updating /w/logs/index.html ... done``, a quiet
#: build's `` GEN  x86_64/gen_version.mk``): its output, not the project's source.
_WRITES = re.compile(
    r"(?i)^\s*(?:updating|writing|wrote|gen|generating|generated|creating|created|saving|saved)\b"
    r"|\b(?:written|saved) to\b"
)
#: An audit's report of a dependency: a vulnerable one (safety's ``-> Vulnerability found in flask``, an
#: advisory's id) or one under a licence the project refuses (license-checker's ``--failOn``).
_AUDITED = re.compile(
    r"(?i)\bvulnerab(?:le|ilit(?:y|ies))\b|\bsecurity advisor(?:y|ies)\b|\bGHSA-|\bCVE-\d|\blicen[cs]es?\b"
)
_NUMBERS = re.compile(r"\d+")
_WORDED = re.compile(r"[A-Za-z]{3}")
#: A stack's frame, any language's: what it names is where a call passed, not a failure of its own.
_FRAME_LINE = re.compile(r"^\s*(?:at |File \"|from |#\d+ |by 0x|\(\w+\) )")
#: A command echoed in the log: npm's ``> tool args`` under its script's name, the shell's ``+ tool args``.
_ECHO = re.compile(r"^(?:> |\+ |\$ )(?=\S)")
#: A command line a driver echoed before running it (make prints each recipe line: ``erlc -o ebin src/cart.erl``,
#: ``shindo test/cart_tests.rb``): a program's name, then only options, paths and single words among them. Prose
#: has words in a row (``warning unused variable x in src/a.c``), a diagnostic a colon after its place.
_ARGUMENT = r"(?:-{1,2}[\w.=/,+-]{1,100}|'[^']{0,300}'|\"[^\"]{0,300}\"|[\w.+-]{0,100}[/.][\w./=,+-]{0,200})"
_ECHOED_COMMAND = re.compile(rf"^(?:\./)?[a-z][\w.+-]{{0,40}}(?: {_ARGUMENT})+(?: [A-Za-z]{{1,30}}(?: {_ARGUMENT})+)*$")
#: A line that says which file a checker is at: ``Validating config/shop.yaml``, ``Checking src/a.c``.
_CHECKING = re.compile(r"(?i)\s*(?:validating|checking|linting|analy[sz]ing|scanning|parsing|verifying)\s")
#: A line that says the file it names passed (``tests/a.py::test_b PASSED``, ``✓ src/a.test.ts (3 tests)``,
#: ``ok  example.com/pkg  0.2s``, ``a.py: No issues detected!``): it names no failure's file.
_PASSED = re.compile(
    r"\bPASS(?:ED)?\b|\bpassed\b|(?:^|\s)[✓✔√](?:\s|$)|^ok\s|\bok$"
    r"|(?i:\bno (?:issues|problems|errors|violations)\b)"  # autoflake's ``shop/__init__.py: No issues detected!``
)
#: Files a log names alone that are the build's own output, not the project's sources.
_NOT_ALONE = re.compile(r"(?i)\.(?:log|txt|o|obj|a|so|dll|exe|class|jar|whl|tgz|zip|tar|gz|lock)$")
#: Where installed code lives: a frame there is not the project's.
_LIBRARY = re.compile(
    r"^(?:/usr/|/opt/|/lib/|/rustc/|<|node:|internal/)|(?:^|/)(?:node_modules|site-packages|dist-packages)/"
    r"|(?:^|/)vendor/bundle/|/_temp/|/\.cargo/registry/|/go/pkg/mod/|/\.rustup/|/\.m2/|/\.pyenv/|/lib/python\d[\d.]{0,5}/"
)
#: A JavaScript stack frame: ``at f (/path/a.js:9:10)``, ``at /path/a.js:9:10``.
_THROWN = re.compile(
    r"^\s*at (?:\S.{0,300} \()?\S{1,300}:\d{1,7}:\d{1,5}\)?$"
    r"|^\s*(?:from )?\S{1,300}\.\w{1,10}:\d{1,7}:in [`'\w<]"  # Ruby's ``./steps/cart_steps.rb:12:in `block'``
)
#: A Python frame (``File "x.py", line 3, in f``): its traceback lists the innermost frame last, with or without
#: the ``Traceback (most recent call last):`` header (green, nose and custom runners leave it out).
_PYTHON_FRAME = re.compile(r'^\s*File "[^"]{1,300}", line \d{1,7}, in ')
#: A path alone on its line: the header a "stylish" report (ESLint, yamllint, stylelint) lists its file's
#: ``line:col severity message`` rows under (marked failed by some: coffeelint's ``✗ src/cart.coffee``).
_HEADER = re.compile(
    r"^\s*(?:==\s*\[|[✖✘×✗]\s|(?i:file):\s+)?(?P<path>(?:[A-Za-z]:)?[\w.\\/+-]{0,200}[\w-]\.[A-Za-z][A-Za-z0-9]{0,9})"
    r"(?:\]\s*(?:FAIL|PASS))?\s*$"  # or sqlfluff's ``== [sql/a.sql] FAIL``
)
#: A report's row under its file header: ``12:5  error  message`` (stylish; unified's ``5:1-5:13 warning``
#: gives the range it spans), ``L6 |`` / ``L:  6 | P:  1 |`` (htmlhint, sqlfluff), or a line (and column) set
#: apart from the message: ``4: DOC101: message`` (pydoclint), ``2:1<tab>message`` (curlylint), ``  7    Scenario
#: name ...`` (gherkin-lint), ``  5 | text`` (a spell checker quoting the line), ``✗ #4: Line exceeds ...``.
_ROW = re.compile(
    r"^\s*(?:(?P<line>\d{1,7}):(?P<column>\d{1,5})(?:-\d{1,7}:\d{1,5})?\s+(?:\[?(?:error|warning)\b|[✖✘×⚠❌])"
    r"|L:?\s*(?P<lline>\d{1,7})\s*\|(?:\s*P:?\s*(?P<lcolumn>\d{1,5})\s*\|)?"
    r"|(?:[✖✘×⚠✗]\s*)?#?(?P<cline>\d{1,7})(?::(?P<ccolumn>\d{1,5}))?(?:\t|:\s{1,8}|\s{2,}|\s?[|┆]\s)(?=\S)"
    r"|Line: (?P<wline>\d{1,7})\s*$"  # prospector's grouped report: ``  Line: 2`` over its messages
    r"|(?P<sline>\d{1,7}):(?P<scolumn>\d{1,5}) (?=[A-Z`]))"  # graphql-schema-linter's ``9:3 The field ...``
)
#: A row that starts with its place (phpmd's ``/path/src/cart.php:5  UnusedLocalVariable  Avoid ...``).
_PLACE_FIRST = re.compile(r"^\s*(?:[A-Za-z]:)?[\w.\\/+-]{0,200}[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}(?::|@|\()\d{1,7}\b")
_NOT_FILES = re.compile(r"(?i)\.(?:com|org|net|io|dev|local|localhost)$|^\d+\.\d+")
_VERSION = re.compile(r"^\d+\.\d+")
_DIAGNOSTIC = re.compile(
    r":\d{1,7}(?::\d{1,5}|\.\d{1,5}(?:-\d{1,7}(?:\.\d{1,5})?)?)?:\s"  # GNU's ``a.vala:6.12-6.15: error``
    r"|:\[\d+,\d+\]|\(\d+,\d+\): |^\s*\d+:\d+\s+(?:\[?error|✖|✘)"
    r"|\.\w+\(\d+(?:,\d+)?\) (?:Error|Fatal|error|fatal)\b"  # Free Pascal: ``cart.pas(9,11) Error: ...``
    r"|:\d{1,7}:\d{1,5} - (?:error|warning)"  # pyright
    r"|\.\w+:\d{1,7}(?::\d{1,5})? (?:error|warning)\b"  # markdownlint: ``README.md:1 error MD022/...``
    # csslint: ``a.css: line 3, col 3, Error - ...``; asciidoctor: ``WARNING: a.adoc: line 7: section title ...``
    r"|\.[A-Za-z]\w{0,9}: line \d{1,7}, col|(?i:error|warning|fatal): \S{1,200}\.[A-Za-z]\w{0,9}: line \d{1,7}:\s"
    r"|\bin \S{1,200}\.[A-Za-z]\w{0,9} line \d{1,7}:"  # chktex: ``Warning 2 in a.tex line 3: ...``
    r"|\.[A-Za-z]\w{0,9} \d{1,7}:\d{1,5}(?:\s|$)"  # dart-sass: ``styles/a.scss 4:10  root stylesheet``
)
#: A compiler's error at a place (``a.c:3:5: error:``, ``cart.pas(9,11) Error:``): what a crash's block may really be.
_COMPILER_ERROR = re.compile(
    r"(?:\.\w+:\d+(?::\d+)?:|\.\w+\(\d+(?:,\s?\d+)?\):?) (?:fatal )?[Ee]rror\b"
    # a build tool's own error naming the source it rejected: rollup's ``[!] RollupError: src/main.js (1:9): ...``
    r"|\b[A-Z]\w*Error: (?:[\w.-]+/)*[\w.-]+\.[A-Za-z]\w{0,9}[ :(]"
    # or naming it in its message: pbjs's ``Error: illegal id 'two' (proto/cart.proto, line 7)``, rolldown's
    # ``[UNRESOLVED_IMPORT] Error: Could not resolve './format' in src/index.ts``
    r"|\bError: .{1,200}?[\s(](?:[\w.-]+/)+[\w.-]+\.[A-Za-z]\w{0,9}(?=[\s,):]|$)"
)
#: A line named in words after the file, or with no file at all: ``syntax error in line 3``, ``Parse error on
#: line 4, column 1``, ``line 6 column 1 - Warning``, ``at line 4, column 9`` (dot, jsonlint, tidy, jq, sqlite3),
#: or a report's ``Line:   3`` under its ``File:   config.py`` (gitleaks, trufflehog).
_LINE_PHRASE = re.compile(
    r"(?i)(?<![\w-])line(?: number)?:? {1,12}(?P<line>\d{1,7})(?:,? col(?:umn)? (?P<column>\d{1,5}))?\b"
    r"|^l\.(?P<tline>\d{1,7}) "  # TeX's mark under its ``! Undefined control sequence.``: ``l.7 \textbfx``
    # scdoc's ``Error at 17:1: Tabs are required``: a line and column after the severity, with no file
    r"|^(?:error|warning|fatal) at (?P<eline>\d{1,7}):(?P<ecolumn>\d{1,5})\b"
)
#: A task runner's verdict on its own recipe (just's ``error: recipe `validate` failed on line 2 with exit code
#: 99``): the line is the justfile's, not that of the file the block names.
_RECIPE = re.compile(r"\brecipe `[^`]{1,100}` failed on line \d")
#: A file a step's command names (``jq . config/app.json``, ``sqlite3 app.db < db/init.sql``).
_COMMAND_FILE = re.compile(
    r"^<?(?P<path>[\w.+-][\w./+-]{0,200}\.[A-Za-z][A-Za-z0-9]{0,9}|(?:[\w.+-]{1,100}/){0,8}" + _NAMED_FILES + r")$"
)
#: A JSON report's keys for a finding's file and line (``"path": "shop/settings.py",`` then ``"line": 3,``).
_JSON_FILE = re.compile(r'^\s*"(?:path|file|filename|file_path)":\s*"(?P<path>[^"]{1,300})",?$')
_JSON_LINE = re.compile(r'^\s*"(?:line|line_number|lineno|start_line)":\s*(?P<line>\d{1,7}),?$')
#: A warning (``Warning: <blink> ...``, ``Warning 2 in x.tex line 3``, ``%Warning-WIDTH: ...``); a line that
#: names an error counts as one, unless it only counts the warnings (``%Error: Exiting due to 1 warning(s)``).
#: The files package managers read what a project depends on from (a lock file is theirs, not the project's).
_MANIFEST = re.compile(
    r"(?<![\w/.-])(?P<path>/?(?:[\w.-]+/){0,12}(?:pyproject\.toml|package\.json|requirements[\w.-]*\.(?:txt|in)|Pipfile"
    r"|setup\.(?:py|cfg)|Cargo\.toml|go\.mod|Gemfile|composer\.json|pom\.xml|build\.gradle(?:\.kts)?|mix\.exs"
    r"|pubspec\.yaml|Package\.swift|environment\.ya?ml|conanfile\.(?:txt|py)|vcpkg\.json|[\w.-]+\.csproj"
    r"|rebar\.config|cpanfile|Makefile\.PL|[\w.-]+\.(?:rockspec|gemspec|cabal|opam|nimble)|stack\.yaml|elm\.json"
    r"|deno\.json|project\.clj|deps\.edn|build\.sbt|shard\.yml|Podfile"
    # a lock file: fixed in its manifest (:data:`~.tools.LOCKS`)
    r"|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|poetry\.lock|uv\.lock|pdm\.lock"
    r"|Pipfile\.lock|Cargo\.lock|go\.sum|Gemfile\.lock|composer\.lock|mix\.lock|rebar\.lock|cpanfile\.snapshot"
    r"|pubspec\.lock|Package\.resolved))(?![\w-]|\.\w)"
)
#: A unified diff's header and first hunk (``--- a/x.py``, ``+++ b/x.py``, ``@@ -2,5 +2,5 @@``).
_DIFF_OLD = re.compile(r"^--- (?P<path>[^\s]{1,300})(?:\t.*)?$")
_DIFF_NEW = re.compile(r"^\+\+\+(?: (?P<path>[^\s]{1,300})(?:\t.*)?)?$")  # flynt names no new side
_DIFF_HUNK = re.compile(r"^@@ -(?P<old>\d{1,7})(?:,\d+)? \+(?P<new>\d{1,7})(?:,\d+)? @@")
#: The label a diff tool puts before each side's path (``a/x.py``), or after it (ssort's ``x.py:before``).
_DIFF_LABEL = re.compile(r"^(?:a|b|old|new|original|fixed|orig|before|after)/")
_DIFF_SUFFIX = re.compile(r"(?P<extension>\.\w{1,10})(?::[a-z]+|\.orig)$")  # ``x.py:before``, shfmt's ``x.sh.orig``
#: A summary that counts what the report above it holds (``Exiting due to 1 warning(s)``, ``3 problems``).
_COUNTED = re.compile(r"(?i)\b\d{1,6} (?:warnings?|errors?|problems?|issues?|violations?)\b")
#: A formatter's or upgrader's report that it changed, or would change, a file (pyupgrade's ``Rewriting a.py``,
#: black's ``would reformat``, autoflake's and isort's ``Fixing``).
_REWRITTEN = re.compile(
    r"(?i)^\s*(?:rewriting|reformatting|reformatted|fixing|would (?:re)?(?:format|write|fix)|needs? (?:re)?formatting)"
    r"\s\S"
)
_WARNING = re.compile(r"(?i)\bwarning\b")
#: An error in words, or an exception's name (``AttributeError:``, ``IOException``), any language's.
_ERROR = re.compile(r"(?i)\berror\b|\b[A-Z]\w*(?:Error|Exception)\b")
_FAILED = re.compile(r"(?i)\b(?:error|errors|fail|failed|failures?|fatal)\b|\b[A-Z]\w*(?:Error|Exception)\b")
#: Kinds the locator's vocabulary gives that the step and the block's markers may name better; ``infra``,
#: ``timeout`` and ``dependency`` name a cause by themselves and stay.
_REDECIDED = frozenset({"unknown", "build_error", "test_failure", "crash"})
#: Kinds a checker's step gives any diagnostic it prints, whatever words the diagnostic uses.
_CHECKERS = frozenset({"lint", "type_error", "security"})


def place_block(
    draft: Draft,
    texts: Iterable[str],
    step: str,
    before: Sequence[str] = (),
    checkout: Checkout | None = None,
    command: str = "",
) -> None:
    """Give ``draft`` (the block's finding) the place its block names, and a kind from the step and its words.

    The place is the first ``path:line`` of the block (its best line first) that is in the repository: a
    file of the ``checkout``, else one outside any library (``/usr/``, ``node_modules/``, ``site-packages/``);
    in a Python traceback (most recent call last) the last such frame. A block with no line at all may still
    name a file alone (``would reformat src/a.py``): that file, without a line.

    :param texts: the block's lines, the one that explains the failure best first.
    :param step: the failed step's command, lower case (``""`` when the log does not say).
    :param before: the lines just above the block, oldest first (a stylish report's file header may be there).
    :param checkout: the repository checkout, when known (``ingest --repo-root``).
    :param command: the step's command as written: a file the block names by its base name alone
        (``add.test:  Total 2  Failed 1``) is the one the command names (``tclsh tests/add.test``).
    """
    lines = list(texts)
    if draft.path is None:
        row = _stylish([*before, *lines[1:]])
        if row is not None:
            draft.message = row[1].strip()  # the row says what is wrong; the block's best line may only count rows
        found = (
            (row[0] if row is not None else None)
            or _diff_place([*before, *lines[1:]])
            or _best_place(lines, checkout)
            or file_alone(lines, checkout, command)
        )
        if found is None or found[1] is None:
            found = _worded_line(lines, found, command) or found
        if found is None and any(_COUNTED.search(text) for text in lines):
            found = _report_above(before)  # ``%Error: Exiting due to 1 warning(s)`` counts the rows above it
        if found is None:
            found = _json_report([*before, *lines])  # a JSON report's ``"path": "a.py"`` and ``"line": 3``
        if found is not None:
            draft.path, draft.line, draft.column = found
    if draft.kind in _REDECIDED:
        kind = block_kind(lines, step, placed=draft.path is not None, above=before, command=command)
        # The locator's crash (a segfault, a panic) stays one, unless a test's (a test that crashed failed) or a
        # compiler's diagnostic (fpc's ``cart.pas(9,11) Error: ...`` above its ``Fatal: Compilation aborted``, a
        # bundler's error about a source above the frames of its own throw).
        built = kind == "build_error" or (kind == "crash" and step_kind(step) == "build_error")
        compiled = built and draft.path is not None and any(_COMPILER_ERROR.search(t) for t in lines)
        if compiled:
            draft.kind = "build_error"
        elif kind is not None and (draft.kind != "crash" or kind == "test_failure"):
            draft.kind = kind
        # ``jq . config/app.json``, ``config/app.json invalid``: a data file is checked, not built.
        if draft.kind in ("build_error", "unknown") and step_kind(step) is None and DATA_FILE.search(draft.path or ""):
            draft.kind = "lint"
    if draft.path is None and draft.kind in (*_CHECKERS, "test_failure"):
        # A checker that says what is wrong but not where (a schema validator's JSON report) checked the one
        # file its command names (``action-validator .github/workflows/ci.yml``); a test that names no place
        # ran in it (``sbcl --load tests/run.lisp``).
        draft.path = _command_file(command)
    if draft.path is not None and (
        draft.role == "fallback" or _THROWN.match(draft.message) or _PASSED.search(draft.message)
    ):
        # A frame of the tool's own throw says nothing, nor a driver's line (make's ``Error 1``), nor a line that
        # says a file passed: the line that named the place does (rollup's ``RollupError: src/main.js (1:9):
        # "totl" is not exported`` above its stack, byacc's ``e - line 16 of "src/calc.y", unterminated action``
        # above make's, autoflake's ``shop/cart.py: Unused imports/variables detected``).
        named = (
            text
            for text in lines
            if _names(text, draft.path, draft.line) and not _PASSED.search(text) and not _ECHOED_COMMAND.match(text)
        )
        draft.message = next(named, draft.message).strip()


def _names(text: str, path: str, line: int | None) -> bool:
    """``text`` names the place ``path`` (at ``line``, or anywhere in the file when None)."""
    if line is None:
        return any(same_file(found.group("path"), path) for found in _FILE.finditer(text))
    return any(place[:2] == (path, line) for place in _places(text))


def block_kind(
    lines: Sequence[str], step: str, *, placed: bool, above: Sequence[str] = (), command: str = ""
) -> Kind | None:
    """The kind of a block no parser read, from what the step ran (:data:`~.tools.TOOLS`) and the block's words
    (:data:`~.tools.MARKERS`); None when neither says.

    A dependency's words win (a compiler that cannot find a package failed for want of it); a checker's step
    names what its diagnostics are; a compile error stops any step; a crash in a test step is its test's
    failure; a diagnostic elsewhere is a build error; else what the step's tool reports when it fails.

    :param lines: the block's lines.
    :param step: the failed step's command, lower case.
    :param placed: the block names a file and line.
    :param above: the lines just above the block: a secret scanner's report may name its reason there
        (tartufo's ``Reason: High Entropy`` over the diff that shows the secret).
    :param command: the step's command as written (``-W`` and ``-w`` differ).
    """
    words = markers(lines)
    by_step = step_kind(step)
    diagnostic = placed and any(_DIAGNOSTIC.search(text) for text in lines)
    # Rows under their file's header: a checker's report (a spell checker's, a template linter's).
    report = placed and _stylish([*above, *lines]) is not None
    if words == "dependency":
        return words
    if any(SECRET.search(text) for text in [*above, *lines]):
        return "security"  # a secret in the sources, whatever checker found it
    if by_step in _CHECKERS and (diagnostic or placed):
        return by_step
    if by_step is None and report:
        return "lint"
    if words == "build_error" or (words == "test_failure" and by_step in ("build_error", "dependency")):
        return "build_error" if words == "build_error" else by_step  # ``expected ';' but found`` is no test
    if by_step == "test_failure" and (words in ("test_failure", "crash") or placed):
        return by_step
    if words is not None:
        return words
    checked_build = by_step == "build_error" and not _strict(lines, command)
    if placed and _only_warnings(lines) and (by_step is None or checked_build):
        # A step that failed on warnings alone ran a checker (tidy, chktex, verilator --lint-only), or wrapped
        # the compiler in one (``scan-build --status-bugs gcc``): a build fails on errors, or on warnings it
        # was told are errors (``sphinx-build -W``).
        return "lint"
    if by_step is None and placed and any(RULE_CODE.match(text) for text in lines):
        return "lint"  # a checker's rule codes at a place (``[TRY002] Create your own exception - a.py:3:8``)
    if diagnostic:
        if by_step in ("lint", "type_error", "test_failure", "security"):
            return by_step
        return "lint" if any(RULE_NAME.search(text) for text in lines) else "build_error"
    if placed and any(_REWRITTEN.match(text) for text in lines):
        return "lint"  # a formatter or upgrader that rewrote (or would rewrite) a file failed a check
    if by_step is None and placed and any(_DIFF_HUNK.match(text) for text in [*above, *lines]):
        return "lint"  # a formatter in check mode printed the change it wants (``autopep8 --diff``)
    # The step's tool alone names a block that says it failed; a quiet end (no failure word) stays unknown,
    # unless a tool nothing names listed the project's files, one a line: a checker flagging them (knip's
    # ``Unused files (1)`` over ``src/legacy.js``).
    if not any(_FAILED.search(text) for text in lines):
        if by_step in _CHECKERS:
            return by_step  # a checker's findings in its own words (commitlint's ``subject may not be empty``)
        if by_step is None and placed and any(lone_place(text) for text in lines):
            return "build_error"  # a compiler's report: the place alone on its line, what is wrong under it (agda)
        listed = placed and any(_HEADER.match(text) or _PLACE_FIRST.match(text) for text in lines)
        return "lint" if by_step is None and listed and not _runs_script(step) else None
    if by_step is None and placed and any(_ERROR.search(text) for text in lines):
        return "build_error"  # an error at a place in the sources, from a tool nothing names (terraform, ocaml)
    return by_step


def manifest(lines: Sequence[str], step: str, checkout: Checkout | None = None) -> str | None:
    """The manifest a dependency failure is fixed in: the first one the block or the step names (a lock file's
    manifest: ``pnpm-lock.yaml is not up to date`` is fixed in ``package.json``), else the one the step's package
    manager reads (:data:`~.tools.MANIFESTS`); one in the ``checkout`` when it is known.

    :param step: the failed step's command, lower case.
    """
    named = [path for text in [*lines, step] for path in _manifests_named(text)]
    for path in [*named, manager_manifest(step)]:
        if path is None or in_library(path) or (relative := repo_relative(repo_path(path))) is None:
            continue
        relative = locked_by(relative) or relative
        if checkout is None or checkout.exists(relative):
            return relative
    return None


def audited_manifest(lines: Sequence[str], step: str, checkout: Checkout | None = None) -> str | None:
    """The manifest that requires the package an audit's ``lines`` report, vulnerable or under a licence the
    project refuses (see :func:`manifest`), or None where they report no such package."""
    return manifest(lines, step, checkout) if any(_AUDITED.search(text) for text in lines) else None


def _manifests_named(text: str) -> Iterator[str]:
    """The manifests ``text`` names, but one said in passing in parentheses (pip's ``Preparing metadata
    (pyproject.toml)``: the file of the package it builds)."""
    for found in _MANIFEST.finditer(text):
        path = found.group("path")
        if text[found.start() - 1 : found.end() + 1] != f"({path})":
            yield path


def locked_by(path: str) -> str | None:
    """The manifest a lock file is made from, in the lock's folder (``web/yarn.lock``: ``web/package.json``)."""
    folder, slash, name = path.replace("\\", "/").rpartition("/")
    return f"{folder}{slash}{LOCKS[name]}" if name in LOCKS else None


def _runs_script(step: str) -> bool:
    """The step runs an interpreter on a script (``bash release.sh``): its output is the script's, not a checker's."""
    first = step.split(maxsplit=1)[0].rsplit("/", 1)[-1] if step.strip() else ""
    return re.sub(r"[\d.]+$", "", first) in INTERPRETERS  # python3.12 is python


def _strict(lines: Sequence[str], command: str) -> bool:
    """The block or the step's command (as written) says warnings are errors (``-Werror``, ``sphinx-build -W``,
    ``--max-warnings 0``, ``asciidoctor --failure-level WARN``, ``--warnings-as-errors``, ``-D warnings``)."""
    return any(_STRICT.search(text) for text in lines) or bool(_STRICT_STEP.search(command))


def _only_warnings(lines: Sequence[str]) -> bool:
    """The block reports warnings and no error (a line that counts warnings is no error)."""
    warned = False
    for text in lines:
        warning = _WARNING.search(text) is not None
        if _ERROR.search(text) and not warning:
            return False
        warned = warned or warning
    return warned


def report_rows(chosen: Draft, above: Sequence[Line], inside: Sequence[Line], command: str) -> list[Draft]:
    """The findings of a compiler's, type checker's or linter's block beside ``chosen`` (its first): one per
    file line of its rows, the rows above the block under their file's header included.

    A compiler's warnings and notes are no failures, unless the block or the step says warnings are errors
    (``sphinx -W``, ``--max-warnings 0``); a checker fails on any of its rows. A line's further problems are
    that line's one fix.

    :param above: up to 20 lines above the block, oldest first.
    :param inside: the block's lines.
    :param command: the failed step's command as written.
    """
    header = next((i for i in range(len(above) - 1, -1, -1) if _HEADER.match(above[i][1])), None)
    if header is None:
        # No file header: the step's own rows above the block (after its ``##[group]``) are the report's too.
        header = next((i + 1 for i in range(len(above) - 1, -1, -1) if above[i][1].startswith("##[")), 0)
    lines = [*above[header:], *inside]
    strict = _strict([text for _, text in lines], command)
    seen = {(chosen.path, chosen.line)}
    rows: list[Draft] = []
    checker = chosen.kind in ("lint", "security")
    for number, text, (path, line, column) in lint_rows(lines, [text for _, text in above], any_place=checker):
        if _NOTE.search(text) or NOTED.search(text) or (chosen.kind != "lint" and not strict and _MINOR.search(text)):
            continue  # a note explains a row above it; a compiler's warning fails nothing
        if any(_same_place(place, chosen) for place in _places(text)):
            continue  # the chosen finding's own line: the other places it names are context (``included from``)
        if (path, line) not in seen:
            seen.add((path, line))
            # A compiler's row that says its types disagree is a type error among the build's errors.
            typed = chosen.kind == "build_error" and markers([text]) == "type_error"
            kind: Kind = "type_error" if typed else chosen.kind
            rows.append(Draft(None, kind, text.strip(), number, number, path=path, line=line, column=column))
    if chosen.kind == "lint":
        # A formatter in check mode names each file it would rewrite on a line of its own, without a line.
        for number, text in lines:
            file = file_alone([text], None, command) if _REWRITTEN.match(text) else None
            if file is None or (chosen.path is not None and same_file(file[0], chosen.path)) or (file[0], None) in seen:
                continue
            seen.add((file[0], None))
            rows.append(Draft(None, "lint", text.strip(), number, number, path=file[0]))
    return rows or _alike_rows(chosen, lines)


def _alike_rows(chosen: Draft, lines: Sequence[Line]) -> list[Draft]:
    """The other rows shaped as the one that placed ``chosen``: a tool prints each of its failures alike (mjml's
    ``Line 6 of /w/a.mjml (mj-image) — ...`` and ``Line 5 of /w/b.mjml (mj-text) — ...``, podchecker's ``***
    ERROR: ... at line 20 in file a.pm``, v8r's ``✖ config/a.yaml is invalid``). A row's shape is the first word
    and the last three before its path, numbers aside (and for a file without a line, what follows it too), and
    has a word; a stack's frame is no row; each row is at another place."""
    if chosen.path is None:
        return []
    lined = chosen.line is not None
    shaped = [(n, text, found) for n, text in lines if (found := _shaped_place(text, lined=lined)) is not None]
    at = (repo_path(chosen.path), chosen.line)
    placing = [
        (t.strip() != chosen.message, s)
        for _, t, (s, p) in shaped
        if p[1] == chosen.line and same_file(p[0], chosen.path)
    ]
    anchor = min(placing)[1] if placing else None  # the line the finding was told by, else the first at its place
    if anchor is None or not _WORDED.search(anchor):
        return []  # a place alone on its line is as often a reference or a quoted line as a failure
    rows: list[Draft] = []
    seen: set[tuple[str | None, int | None]] = {at}
    for number, text, (shape, (path, line, column)) in shaped:
        if (
            shape == anchor
            and (repo_path(path), line) not in seen
            and not (line is None and same_file(path, chosen.path))
        ):
            seen.add((repo_path(path), line))
            rows.append(Draft(None, chosen.kind, text.strip(), number, number, path=path, line=line, column=column))
    return rows


def _shaped_place(text: str, *, lined: bool) -> tuple[str, Place] | None:
    """The first place ``text`` names (with a line, or a file alone), and the shape of the words around its path."""
    if _FRAME_LINE.match(text):
        return None
    if lined:
        place = next((found for found in _places(text) if found[1] is not None), None)
    else:
        file = next(
            (found.group("path") for found in _FILE.finditer(text) if not _LIBRARY.search(found.group("path"))), None
        )
        place = (file, None, None) if file is not None else None
    if place is None or (start := text.find(place[0])) < 0:
        return None
    before = _NUMBERS.sub("#", text[:start]).split()
    shape = " ".join([*before[:1], "…", *before[-3:]])
    if not lined:
        shape += " <> " + _NUMBERS.sub("#", text[start + len(place[0]) :]).strip()
    return shape, place


def failed_tests(step: Sequence[Line], checkout: Checkout | None = None) -> list[Draft]:
    """One finding per failed test a runner's step names by a verdict line (:func:`~.tools.verdict_name`), each
    at the project's first place in its details, when two tests or more failed.

    A runner prints each failure's details under its verdict (karma's ``Cart sums the prices FAILED`` over its
    ``at UserContext.<anonymous> (test/cart.spec.js:3:31)``) or above it (bun's frame over ``(fail) count``):
    whichever the first verdict and the first place say. A verdict with no place in its details (a summary's
    ``TOTAL: 2 FAILED``) gives none.

    :param step: the failed step's lines.
    :returns: the tests' findings, or none when fewer than two tests were placed (the located block tells one).
    """
    verdicts = [(index, name) for index, (_, text) in enumerate(step) if (name := verdict_name(text))]
    if len({name for _, name in verdicts}) < 2:
        return []
    placed = [project_place([text], checkout) for _, text in step]
    first = next((index for index, place in enumerate(placed) if place is not None), None)
    if first is None:
        return []
    below = verdicts[0][0] < first  # the details follow their verdict
    rows: list[Draft] = []
    bounds = [-1, *(index for index, _ in verdicts), len(step)]
    for at, (index, name) in enumerate(verdicts, start=1):
        span = range(index + 1, bounds[at + 1]) if below else range(bounds[at - 1] + 1, index)
        place = next((placed[i] for i in span if placed[i] is not None), None)
        if place is not None:
            number, text = step[index]
            rows.append(Draft(None, "test_failure", text.strip(), number, number, *place, test_id=name))
    return rows if len(rows) > 1 else []


def _same_place(place: Place, draft: Draft) -> bool:
    """``place`` is where ``draft`` is, however each names the file (``/home/runner/.../a.py``, ``a.py``)."""
    return draft.path is not None and place[1] == draft.line and same_file(place[0], draft.path)


def same_file(first: str, second: str) -> bool:
    """Two names of one file, however each names it (``/home/runner/work/x/x/src/a.py``, ``src/a.py``, ``a.py``)."""
    one, other = repo_path(first) or "", repo_path(second) or ""
    return one == other or one.endswith(f"/{other}") or other.endswith(f"/{one}")


def lint_rows(
    lines: Sequence[tuple[int, str]], before: Sequence[str] = (), *, any_place: bool = False
) -> list[tuple[int, str, Place]]:
    """Each diagnostic row of a linter's block (``path:line[:col]: message``, or a stylish report's rows under
    their file header), with its place: one finding each, as a linter reports one problem per row.

    :param any_place: the block is a checker's: any line naming a place with a line is a row, whatever its shape
        (checkbashisms' ``possible bashism in a.sh line 7 (...)``, unimport's ``json at shop/cart.py:1``).
    """
    rows: list[tuple[int, str, Place]] = []
    header: str | None = next((h.group("path") for h in map(_HEADER.match, reversed(before)) if h), None)
    for number, text in lines:
        found = _HEADER.match(text)
        if found is not None:
            header = found.group("path")
            continue
        row = _ROW.match(text)
        if row is not None and header is not None:
            rows.append((number, text, (header, *_row_place(row))))
        elif any_place or _DIAGNOSTIC.search(text):
            place = first_place(text)
            if place is not None and place[1] is not None:
                rows.append((number, text, place))
    return rows


def _stylish(lines: list[str]) -> tuple[Place, str] | None:
    """The first ``line:col error`` row of a stylish report, under the file header above it: its place and text."""
    for index, text in enumerate(lines):
        row = _ROW.match(text)
        if row is None:
            continue
        header = next((h for h in map(_HEADER.match, reversed(lines[:index])) if h is not None), None)
        if header is not None:
            return (header.group("path"), *_row_place(row)), text
    return None


def _diff_place(lines: Sequence[str]) -> Place | None:
    """The first line a unified diff changes, in the file it names: what a formatter in check mode (``autopep8
    --diff``, ``black --diff``, ``gofmt -d``) or a test of expected output (cram) printed instead of a place.

    The file is the diff's old side (``--- original/shop/cart.py``), else its new one when the file is new
    (``--- /dev/null``), without the side's label (``a/``, ``b/``, ``original/``, ``fixed/``); the line is the
    hunk's start plus the context lines above its first change.
    """
    for index, text in enumerate(lines):
        if (old := _DIFF_OLD.match(text)) is None:
            continue
        # The block's best line may stand between the header's lines (the lines come best line first).
        near = lines[index + 1 : index + 6]
        new = next((found for found in map(_DIFF_NEW.match, near) if found), None)
        first = next(((i, found) for i, found in enumerate(map(_DIFF_HUNK.match, near)) if found), None)
        if new is None or first is None:
            continue
        at, hunk = first
        side = old if old.group("path") != "/dev/null" or new.group("path") is None else new
        path = _DIFF_SUFFIX.sub(r"\g<extension>", _DIFF_LABEL.sub("", side.group("path")))
        start = int(hunk.group("old") if side is old else hunk.group("new"))
        # A blank line is a context line whose space the log lost, unless a blank line stands under every line
        # of the diff, its header's too (a tool that prints each line with its newline: flynt).
        spaced = near[0] == ""
        context = 0
        for body in lines[index + at + 2 : index + 60]:
            if not body.startswith(" ") and body != "":
                break
            context += not (spaced and body == "")
        return path, max(start, 1) + context, None
    return None


def _best_place(lines: Sequence[str], checkout: Checkout | None) -> Place | None:
    """The block's place: the first in the repository (the last, in a most-recent-call-last traceback); None
    when it names only libraries' places."""
    places = [place for text in lines for place in _places(text)]
    if not places:
        return None
    # Where it threw (a stack frame's ``at f (test/a.js:9:10)``) before where a runner says the step or test is.
    thrown = [place for text in lines if _THROWN.match(text) for place in _places(text)]
    places = [*(p for p in thrown if not _LIBRARY.search(p[0].replace("\\", "/"))), *places]
    if any("most recent call last" in text or _PYTHON_FRAME.match(text) for text in lines):
        places.reverse()  # the innermost frame is the last
    if checkout is not None:
        for place in places:
            if in_checkout(place[0], checkout):
                return place
    # Only a library's frames (a template engine's throw): no place of the project, which a file named alone may give.
    return next((place for place in places if not _LIBRARY.search(place[0].replace("\\", "/"))), None)


def project_place(
    texts: Sequence[str], checkout: Checkout | None, command: str = "", *, file: str | None = None
) -> Place | None:
    """The first place in the project that a parser's block names, when the parser found none where it looked.

    An error thrown inside a library (a template compiler's ``Error: views/cart.pug:7:24`` above frames all in
    ``node_modules``) or a runner that quotes another language's frames (``File "tests/test_cart.py", line 9``
    under an RSpec-like verdict) still names the project's file: the first ``path:line`` outside any library
    (in the ``checkout`` when known), else a line named in words (``Parse error on line 3``) in the file the
    step's ``command`` names.

    :param file: the file the block names alone, when it does: only a place in that file counts.
    """
    for text in texts:
        if _DIGIT.search(text) is None:
            continue  # no line number, no place with a line
        for place in _places(text):
            if _LIBRARY.search(place[0].replace("\\", "/")) or place[1] is None:
                continue
            if file is not None and not same_file(place[0], file):
                continue
            if checkout is None or in_checkout(place[0], checkout):
                return place
    return _worded_line(texts, None, command)


def file_alone(lines: Sequence[str], checkout: Checkout | None, command: str = "") -> Place | None:
    """A file the block names without a line: in the checkout, else under the workspace, with a folder or as the
    step's command names it (a base name: the path the command gives it), and never a library's."""
    for text in lines:
        if _MISSING.search(text) or _WRITES.search(text) or _PASSED.search(text) or _ECHOED_COMMAND.match(text):
            continue  # ``./install.sh: No such file or directory``: the file named is the one that is not there
        # A command the log echoes (npm's ``> tool -o dist/a.html pages/a.html``): the file it reads, not its output.
        read = (_echoed_read(text) or "") if _ECHO.match(text) else text
        for match in _FILE.finditer(read):
            path = match.group("path")
            if _LIBRARY.search(path) or _NOT_FILES.search(path) or _NOT_ALONE.search(path):
                continue
            path = named_by_command(path, command)
            named = path in command.split()  # ``amtool check-config alertmanager.yml``: the file it checks
            if checkout is not None:
                if in_checkout(path, checkout):
                    return path, None, None
            elif repo_relative(repo_path(path)) is not None and ("/" in path or "\\" in path or named):
                return path, None, None
    return None


def checked_file(lines: Sequence[str], checkout: Checkout | None, command: str = "") -> Place | None:
    """The file a checker says it is checking (``Validating config/shop.yaml``), on the first of ``lines`` that
    says so, without a line."""
    return file_alone([text for text in lines if _CHECKING.match(text)][:1], checkout, command)


def echoed_file(lines: Sequence[str]) -> Place | None:
    """The one file the first command echoed in ``lines`` reads (npm's ``> tool in.yaml -o out.ts``), without a line."""
    path = next((_echoed_read(text) for text in lines if _ECHO.match(text)), None)
    return (path, None, None) if path is not None and repo_relative(repo_path(path)) is not None else None


def _echoed_read(text: str) -> str | None:
    """The one file the command echoed on ``text`` reads (see :func:`_command_file`), or None."""
    echoed = _ECHO.match(text)
    return _command_file(text[echoed.end() :]) if echoed is not None else None


def named_by_command(path: str, command: str) -> str:
    """A file the log names by its base name alone (dialyzer's ``cart.erl:8:24:``) is the one the step's command
    names with its folder (``--src src/cart.erl``)."""
    if "/" in path or "\\" in path:
        return path
    return next((word for word in command.split() if word.endswith(f"/{path}")), path)


def _json_report(lines: Sequence[str]) -> Place | None:
    """The first place a JSON report names: its ``"path"`` (``"file"``, ``"filename"``) and the ``"line"``
    (``"line_number"``, ``"lineno"``) a few keys further (dodgy, bandit's and semgrep's JSON)."""
    for index, text in enumerate(lines):
        if (file := _JSON_FILE.match(text)) is None:
            continue
        path = file.group("path")
        if _LIBRARY.search(path) or _NOT_FILES.search(path) or _FILE.fullmatch(path) is None:
            continue
        for after in lines[index + 1 : index + 8]:
            if (line := _JSON_LINE.match(after)) is not None and int(line.group("line")) > 0:
                return path, int(line.group("line")), None
        return path, None, None
    return None


def _report_above(before: Sequence[str]) -> Place | None:
    """The first diagnostic row the step printed above its summary (after its ``##[group]``), if any."""
    start = next((i + 1 for i in range(len(before) - 1, -1, -1) if before[i].startswith("##[")), 0)
    rows = lint_rows(list(enumerate(before[start:])))
    return rows[0][2] if rows else None


def _worded_line(lines: Sequence[str], alone: Place | None, command: str) -> Place | None:
    """A line the block names in words (``Parse error on line 4``) in the file it names alone (``File:
    config/app.json``), else in the one file the step's command names (``jq . config/app.json``; the file
    redirected into it when it names several: ``sqlite3 app.db < db/init.sql``)."""
    told = (text for text in lines if not _RECIPE.search(text))
    phrase = next((found for found in map(_LINE_PHRASE.search, told) if found is not None), None)
    if phrase is None:
        return None
    path = alone[0] if alone is not None else _command_file(command)
    if path is None:
        return None
    column = phrase.group("column") or phrase.group("ecolumn")
    line = phrase.group("line") or phrase.group("tline") or phrase.group("eline")
    return path, int(line), int(column) if column else None


def _command_file(command: str) -> str | None:
    """The file a step's command works on: the one redirected into it, else the only one it names (one not
    after an option first: ``handlebars a.hbs -f dist/a.js`` reads ``a.hbs``, the option's file is its output)."""
    words = command.replace("< ", "<").split()
    redirected = [word[1:] for word in words[1:] if word.startswith("<") and _COMMAND_FILE.match(word)]
    if redirected:
        return redirected[0]
    named = [
        (found.group("path"), option.startswith("-"))
        for option, found in zip(words, map(_COMMAND_FILE.match, words[1:]), strict=False)
        if found is not None and not _LIBRARY.search(found.group("path")) and not _NOT_FILES.search(found.group("path"))
    ]
    for files in ({path for path, after_option in named if not after_option}, {path for path, _ in named}):
        if files:
            return files.pop() if len(files) == 1 else None
    return None


def in_library(path: str) -> bool:
    """True when ``path`` (as a log shows it, or made repository-relative) is installed code: a system's, a
    package manager's (``node_modules/tape/lib/test.js``), the runner's; never the project's own."""
    return _LIBRARY.search(path.replace("\\", "/")) is not None


def in_checkout(path: str, checkout: Checkout) -> bool:
    """True when ``path`` (as a log shows it) is a file of ``checkout``."""
    if checkout.has(path):
        return True
    relative = repo_relative(repo_path(path))
    return relative is not None and checkout.exists(relative)


def _row_place(row: re.Match[str]) -> tuple[int, int | None]:
    line = int(next(number for number in row.group("line", "lline", "cline", "wline", "sline") if number))
    column = row.group("column") or row.group("lcolumn") or row.group("ccolumn") or row.group("scolumn")
    return line, int(column) if column else None


def lone_place(text: str) -> Place | None:
    """The place ``text`` is made of alone (``  test/CartSpec.hs:9:25: ``), with a line, or None."""
    stripped = text.strip().rstrip(":")
    place = first_place(stripped) if stripped and " " not in stripped else None
    return place if place is not None and place[1] is not None else None


def first_place(text: str) -> Place | None:
    """The first ``path:line`` (or ``path, line N``, ...) ``text`` names, or None."""
    return next(_places(text), None)


def _places(text: str) -> Iterator[Place]:
    if _JVM_LIBRARY_FRAME.search(text):
        return  # ``at org.junit.Assert.fail(Assert.java:89)``: a frame of the JDK or a library, not the project's
    if ":" in text:
        text = _GLUED_SEVERITY.sub(_spaced, text)
        if "file:" in text:
            # an ES module's frame (``at file:///w/test/cart.test.js:12:3``), a Java URI (``"file:/w/a.html":11.1``)
            text = _FILE_URI.sub("", text)
    if text.endswith(")") and ": " in text and (trailing := _TRAILING.search(text)) is not None:
        yield trailing.group("path"), int(trailing.group("line")), int(trailing.group("column"))
    if ") in " in text and (first := _LINE_IN_FILE.search(text)) is not None:
        yield first.group("path"), int(first.group("line")), int(first.group("column"))
    if "ine " in text and (worded := _LINE_OF_FILE.search(text)) is not None:
        yield worded.group("path"), int(worded.group("line")), None
    if "line " in text and (quoted := _QUOTED_LINE.search(text)) is not None:
        yield quoted.group("path"), int(quoted.group("line")), None
    for match in _PLACE.finditer(text):
        path = match.group("path").rstrip(".")
        scheme = text[max(0, match.start() - 7) : match.start()]
        if _not_a_file(path) or ("://" in scheme[-3:] and scheme != "file://"):
            continue  # a URL's host, but a ``file://`` URL's path is a file
        lines = match.group(*_PLACE_LINES)
        number = next((n for n in lines if n), None)
        columns = match.group(*_PLACE_COLUMNS)
        col = next((c for c in columns if c), None)
        line = int(number) if number else None
        if line == 0:
            continue
        yield path, line, int(col) if col else None
    if "line" in text and (worded := _PATH_THEN_LINE.search(text)) is not None:
        column = worded.group("column")
        named, number = worded.group("path", "line") if worded.group("path") else worded.group("kpath", "kline")
        yield named, int(number), int(column) if column else None
    if (bare := _BARE_PLACE.search(text)) is not None and not _LIBRARY.search(bare.group("path")):
        column = bare.group("column")
        yield bare.group("path"), int(bare.group("line") or bare.group("wline")), int(column) if column else None


def _spaced(glued: re.Match[str]) -> str:
    return f"{glued.group(1) or glued.group(2)}: "


def _not_a_file(path: str) -> bool:
    """A host (``example.org``) or a version (``1.2.3``), not a file; a host has no folder (``zones/db.example.org``
    is a zone file)."""
    return bool(_NOT_FILES.search(path)) and ("/" not in path or _VERSION.match(path) is not None)
