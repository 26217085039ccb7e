from taurec.policies.document import policy_sections, policy_text
from taurec.tasks.recommendation.task import PolicyName


def test_document_defines_each_of_the_seven_policies_once():
    sections = policy_sections()
    assert set(sections) == set(PolicyName)
    for name in PolicyName:
        assert policy_text().count(f"(`{name.value}`)") == 1


def test_each_policy_section_states_its_check():
    for name, body in policy_sections().items():
        assert "*Check" in body, name


def test_document_allows_pitching_one_title_per_message_only():
    text = policy_text()
    assert "one title per message" in text
    # tau-Rec's own text forbids naming any title before committing; ours allows one pitch
    # at a time, so that sentence must not appear.
    assert "always call the `recommend` tool first" not in text
