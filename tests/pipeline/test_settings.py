"""Each component's settings have one owner (``pipeline/settings.py``): the factories' defaults
are read from the settings objects, nothing else writes a default, and the checks, run-time
settings and config-only model attrs behave as documented."""
import inspect

import pytest
import spacy
from spacy.language import Language
from thinc.api import Model

from spacy_lal.pipeline.lemmatizer.component import RuleBackedLemmatizer
from spacy_lal.pipeline.lemmatizer.settings import LAL_LEMMATIZER
from spacy_lal.pipeline.parser.component import LabelAttentionDependencyParser, LabelAttentionParser
from spacy_lal.pipeline.parser.settings import LAL_DEPENDENCY_PARSER, LAL_PARSER
from spacy_lal.pipeline.settings import ConfigSetting, Setting, Settings, check_flag
from spacy_lal.pipeline.spa.component import SpaDependencyParser
from spacy_lal.pipeline.spa.settings import LAL_SPA_PARSER
from spacy_lal.pipeline.srl.component import SemanticRoleLabeler
from spacy_lal.pipeline.srl.settings import LAL_SRL

FACTORIES = [
    ("lal_parser", LAL_PARSER, LabelAttentionParser),
    ("lal_dependency_parser", LAL_DEPENDENCY_PARSER, LabelAttentionDependencyParser),
    ("lal_srl", LAL_SRL, SemanticRoleLabeler),
    ("lal_spa_parser", LAL_SPA_PARSER, SpaDependencyParser),
    ("lal_lemmatizer", LAL_LEMMATIZER, RuleBackedLemmatizer),
]


@pytest.mark.parametrize("factory,settings,cls", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_the_factory_defaults_are_the_settings_objects(factory, settings, cls):
    default_config = dict(Language.get_factory_meta(factory).default_config)
    assert {key: value for key, value in default_config.items() if key not in ("model", "scorer")} == settings.defaults()
    assert cls.SETTINGS is settings
    # The factory function takes every factory setting and gives none a default of its own.
    function = spacy.registry.factories.get(factory)
    parameters = inspect.signature(function).parameters
    assert set(settings.defaults()) <= set(parameters)
    assert all(parameters[key].default is inspect.Parameter.empty for key in settings.defaults())
    # The component's __init__ takes the settings as **settings: no default there either.
    init = inspect.signature(cls.__init__).parameters
    assert not set(settings) & set(init)


def test_settings_check_fill_defaults_and_refuse_unknown_names():
    settings = Settings(a=Setting(1), flag=Setting(False, check_flag, runtime=True), fixed=Setting("x", factory=False))
    assert settings.check("comp", {}) == {"a": 1, "flag": False, "fixed": "x"}
    assert settings.check("comp", {"flag": True})["flag"] is True
    assert settings.runtime == ("flag",)
    assert settings.defaults() == {"a": 1, "flag": False}
    with pytest.raises(ValueError, match=r"comp: unknown settings \['b'\]"):
        settings.check("comp", {"b": 2})
    with pytest.raises(ValueError, match=r"unknown settings \['fixed'\]"):  # fixed by the component
        settings.check("comp", {"fixed": "y"})
    with pytest.raises(ValueError, match="comp: flag must be true or false"):
        settings.check("comp", {"flag": "yes"})
    defaults = settings.defaults()
    defaults["a"] = 2
    assert settings.defaults()["a"] == 1


def test_configure_checks_before_it_changes_anything(tiny_srl):
    nlp = spacy.blank("en")
    srl = nlp.add_pipe("lal_srl", config={"model": tiny_srl})
    srl.configure(decoder="viterbi", sense_prior=0.25)
    assert (srl.cfg["decoder"], srl.cfg["sense_prior"]) == ("viterbi", 0.25)
    srl.configure(tree_penalty=float("inf"))  # a command line's inf: the hard constraint, null
    assert srl.cfg["tree_penalty"] is None
    srl.configure(tree_penalty=2)
    assert srl.cfg["tree_penalty"] == 2.0
    with pytest.raises(ValueError, match="decoder must be one of"):
        srl.configure(sense_prior=1.0, decoder="beam")
    assert (srl.cfg["decoder"], srl.cfg["sense_prior"]) == ("viterbi", 0.25)
    with pytest.raises(ValueError, match="unknown settings"):
        srl.configure(labels=["O"])  # labels come from training data, not settings


def test_the_dependency_parser_fixes_what_it_lacks(tiny_parser):
    nlp = spacy.blank("en")
    parser = nlp.add_pipe("lal_dependency_parser", config={"model": tiny_parser})
    assert (parser.cfg["constituency"], parser.cfg["dependencies"], parser.cfg["dependency_decoder"]) == (False, True, "mst")
    with pytest.raises(ValueError, match="unknown settings"):
        parser.configure(constraints={"require": ["ents"]})


def test_a_config_setting_attr_keeps_its_config_value_on_load():
    saved = Model("m", lambda model, X, is_train: (X, lambda d: d), attrs={"cells": ConfigSetting(5), "plain": 5})
    data = saved.to_bytes()
    loaded = Model("m", lambda model, X, is_train: (X, lambda d: d), attrs={"cells": ConfigSetting(9), "plain": 9})
    loaded.from_bytes(data)
    assert loaded.attrs["cells"] == 9  # the config's
    assert loaded.attrs["plain"] == 5  # the saved one


def test_the_lemmatizer_checks_its_settings_when_made():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="lemmatizer: mode must be one of"):
        nlp.add_pipe("lal_lemmatizer", name="lemmatizer", config={"mode": "rule"})
    with pytest.raises(ValueError, match="lemmatizer: top_k must be a positive whole number"):
        nlp.add_pipe("lal_lemmatizer", name="lemmatizer", config={"top_k": 0})
    lemmatizer = nlp.add_pipe("lal_lemmatizer", config={"mode": "rules", "rules_first": ["NOUN"]})
    assert lemmatizer.mode == "rules" and lemmatizer.rules_first == {"NOUN"}
    with pytest.raises(ValueError, match="the rule tables are English"):
        spacy.blank("de").add_pipe("lal_lemmatizer")
