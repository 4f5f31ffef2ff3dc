"""Build the Cython decoders; everything else lives in setup.cfg."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DECODERS = ["cky", "eisner", "joint", "mst", "span_viterbi", "viterbi"]

extensions = [
    Extension(
        f"spacy_lal.decode._{name}",
        [f"spacy_lal/decode/_{name}.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in DECODERS
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level="3",
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
    )
)
