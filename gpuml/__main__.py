"""``python -m gpuml``: the demo (``gpuml/_demo.py``); ``python -m gpuml run
script.py`` runs an unchanged scikit-learn script with gpuml's estimators and
searches (``gpuml/_accel.py``); ``python -m gpuml warmup`` compiles gpuml's
CUDA kernels ahead of time (``gpuml/_warmup.py``).

Only the chosen command's module is imported: ``run`` must not pay for the
demo's imports (scikit-learn, NumPy) before the script asks for them.
"""

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        from gpuml._accel import run

        return run(argv[1:])
    if argv[:1] == ["warmup"]:
        from gpuml._warmup import main as warmup_main

        return warmup_main(argv[1:])
    from gpuml._demo import main as demo_main

    return demo_main(argv)


if __name__ == "__main__":
    sys.exit(main())
