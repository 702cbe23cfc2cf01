"""Building a benchmark from code: CodeBenchGen's pipeline on the plugin's engine and sandbox.

``--codegen-build=PATH`` turns code fragments into Exec-CSN-format examples (Xiao et al.,
CodeBenchGen): each fragment is a pytest item that runs the paper's four steps (sandboxing,
test generation, execution and debugging, post-processing); kept fragments pass, rejected ones
fail with their stage and reason, and the controller writes the suite file and the build
report. Only a build imports this package (``plugin.py`` registers it under
``--codegen-build``); it uses the rest of the plugin, which reaches it through hooks alone
(pytest's, and ``pytest_codegen_grades_samples``: fragments are not samples). Modules by job:

``inputs``          fragments from .py files, directories, globs, and JSON/JSONL rows
``stage_prompts``   the prompt of each stage (and ``--codegen-prompt-template build:STAGE=PATH``)
``checks``          AST checks of model output and the rules that reject it
``pipeline``        the four steps for one fragment
``mutants``         simple mutants of the target, to see whether the tests can fail
``output``          the Exec-CSN row of a kept example, the suite file and the build report
``pool``            fragments built concurrently, shared between xdist workers
``parsing``         ``ast.parse`` one thread at a time, where CPython's is not thread-safe
``fragment_items``  the pytest side: collection, items, reports, the controller's summary
"""
