package ai.openalice.rl.jinja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Jinja subset, case by case; every expected string follows from Jinja's and Python's documented rules. */
class JinjaTest {
    static String render(String template) {
        return Template.parse(template).render(Map.of("x", "X"), Clock.systemUTC());
    }

    /** {@code template} with {@code x} = the integer {@code x}. */
    static String render(String template, long x) {
        return Template.parse(template).render(Map.of("x", x), Clock.systemUTC());
    }

    @Test
    void whitespaceControlAsHuggingFaceConfiguresIt() {
        assertEquals("  a\n b", render("{% if true %}\n  a\n{% endif %}\n b"), "trim_blocks drops the newline after a block tag");
        assertEquals("yes", render("  {% if true %}yes{% endif %}\n"), "lstrip_blocks drops the indent before a block tag");
        assertEquals("a\n", render("{{ 'a' }}\n\n"), "one trailing newline of the template goes");
        assertEquals("  yes", render("  {%+ if true %}yes{% endif %}"), "{%+ keeps the indent");
        assertEquals("ab", render("a  \n {{- 'b' }}"), "{{- strips all whitespace before");
        assertEquals("a\n", render("{{ 'a' }}\n{# c #}\n"), "trim_blocks applies to comments, not to output tags");
        assertEquals("ab", render("a {#- c -#}\n\n b"));
        assertEquals("a\nb", render("{{ 'a' }}\n{{ 'b' }}"));
        assertEquals("{{ x }}", render("{% raw %}{{ x }}{% endraw %}"));
    }

    @Test
    void pythonValuesPrintAsPythonPrintsThem() {
        assertEquals("None True False 1.0 2 0.5 1e-05 X", render("{{ none }} {{ true }} {{ False }} {{ 1.0 }} {{ 2 }} {{ 0.5 }} {{ 0.00001 }} {{ x }}"));
        assertEquals("['a', 1, None] {'k': 'v'} [\"it's\", 'a\\nb']", render("{{ ['a', 1, none] }} {{ {'k': 'v'} }} {{ [\"it's\", 'a\\nb'] }}"));
        assertEquals("3 -4 3.5 2 8 X!", render("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 / 2 }} {{ -7 % 3 }} {{ 2 ** 3 }} {{ x ~ '!' }}"));
    }

    @Test
    void stringsListsAndSlices() {
        assertEquals("['a', 'b', '', 'c'] ['x', 'y'] ['a', 'b,c']", render("{{ 'a,b,,c'.split(',') }} {{ '  x y  '.split() }} {{ 'a,b,c'.split(',', 1) }}"));
        assertEquals("[3, 2, 1] el [3, 4] olleh [1, 3]", render("{{ [1, 2, 3][::-1] }} {{ 'hello'[1:3] }} {{ [1, 2, 3, 4][-2:] }} {{ 'hello'[::-1] }} {{ [1, 2, 3][::2] }}"));
        assertEquals("look|x|True|False", render("{{ '\\n\\nlook\\n'.strip('\\n') }}|{{ 'xx'.lstrip('x') ~ 'x' }}|{{ 'abc'.startswith('ab') }}|{{ 'abc'.endswith(('x', 'y')) }}"));
        assertEquals("True False 3", render("{{ 'tool_calls' in {'tool_calls': []} }} {{ 'q' in 'abc' }} {{ [1, 2, 3] | length }}"));
    }

    @Test
    void scopingNamespacesAndLoops() {
        assertEquals("1", render("{% set v = 1 %}{% for i in [1, 2] %}{% set v = i %}{% endfor %}{{ v }}"), "a set in a loop stays in the loop");
        assertEquals("2", render("{% set ns = namespace(v=1) %}{% for i in [1, 2] %}{% set ns.v = i %}{% endfor %}{{ ns.v }}"));
        assertEquals("2", render("{% if true %}{% set v = 2 %}{% endif %}{{ v }}"), "an if does not scope");
        assertEquals("0TrueFalse1FalseTrue", render("{% for c in 'ab' %}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{% endfor %}"));
        assertEquals("02", render("{% for i in range(5) %}{% if i == 3 %}{% break %}{% endif %}{% if i == 1 %}{% continue %}{% endif %}{{ i }}{% endfor %}"));
        assertEquals("b2,", render("{% for k, v in {'a': 1, 'b': 2}.items() if v > 1 %}{{ k }}{{ v }},{% else %}none{% endfor %}"));
        assertEquals("none", render("{% for i in [] %}{{ i }}{% else %}none{% endfor %}"));
        assertEquals("[1x][2y]", render("{% macro m(a, b='x') %}[{{ a }}{{ b }}]{% endmacro %}{{ m(1) }}{{ m(2, b='y') }}"));
        assertEquals("<b>", render("{% set s %}<{{ 'b' }}>{% endset %}{{ s }}"));
    }

    @Test
    void everyTagAndItsEnd() {
        String chain = "{% if x == 1 %}one{% elif x == 2 %}two{% elif x == 3 %}three{% else %}many{% endif %}";
        assertEquals("one|two|three|many", String.join("|", render(chain, 1), render(chain, 2), render(chain, 3), render(chain, 9)));
        assertEquals("", render("{% if false %}a{% elif false %}b{% endif %}"), "no branch taken and no else: nothing");
        assertEquals("1-2", render("{% set a, b = 1, 2 %}{{ a }}-{{ b }}"), "a tuple target takes the tuple's items in order");
        assertEquals("[kept]", render("[{% generation %}kept{% endgeneration %}]"), "transformers' assistant-mask marker renders its body");
        assertEquals("x:a,x:b,", render("{% macro item(v, p='x') %}{{ p }}:{{ v }},{% endmacro %}{% for v in ['a', 'b'] %}{{ item(v) }}{% endfor %}"));
        assertEquals("Hello World-Hello World", render("{{ 'hELLO wORLD' | title }}-{{ 'hello world'.title() }}"));
    }

    @Test
    void strftimeNowReadsTheClockItIsGiven() {
        var clock = Clock.fixed(Instant.parse("2026-07-04T09:05:00Z"), ZoneOffset.UTC);
        assertEquals("04 Jul 2026", Template.parse("{{ strftime_now('%d %b %Y') }}").render(Map.of(), clock));
    }

    @Test
    void filtersAndTests() {
        assertEquals("{\"a\": [1, \"<&>\"], \"b\": null}", render("{{ {'a': [1, '<&>'], 'b': none} | tojson }}"), "tojson: json.dumps spacing, no HTML escaping");
        assertEquals("{\"b\":1,\"a\":2}", render("{{ {'b': 1, 'a': 2} | tojson(separators=(',', ':')) }}"));
        assertEquals("a\nb", render("{{ [{'type': 'text', 'text': ' a '}, {'type': 'image'}, {'type': 'text', 'text': 'b'}]"
                + " | selectattr('type', 'equalto', 'text') | map(attribute='text') | map('trim') | join('\\n') }}"));
        assertEquals("d X d", render("{{ y | default('d') }} {{ x | default('d') }} {{ '' | default('d', true) }}"));
        assertEquals("TrueFalseTrueTrue", render("{{ y is not defined }}{{ x is none }}{{ 3 is odd }}{{ {} is mapping }}"));
        assertEquals("c|a", render("{{ ['a', 'b', 'c'] | last }}|{{ ['a', 'b', 'c'] | reverse | list | join('') | replace('cb', '') }}"));
    }

    @Test
    void errorsNameTheLineAndTheProblem() {
        assertMessage("line 2: unknown filter 'nope'", "a\n{{ x | nope }}");
        assertMessage("'y' is undefined", "{{ y.z }}");
        assertMessage("the template raised: bad role", "{{ raise_exception('bad role') }}");
        assertMessage("{% include %} is not supported", "{% include 'x' %}");
        assertMessage("line 1: unknown tag {% frobnicate %}", "{% frobnicate %}");
        assertMessage("missing {% endfor %}", "{% for i in [1] %}{{ i }}{% else %}");
        assertMessage("line 1: expected 'in', found 'of'", "{% for i of [1] %}{% endfor %}");
        assertMessage("missing {% endif %}", "{% if true %}a");
        assertMessage("unclosed tag", "{{ x ");
        assertMessage("unsupported operand type(s) for +: 'str' and 'int'", "{{ 'a' + 1 }}");
        assertMessage("cannot assign attribute 'v' of 'n'", "{% set n = 1 %}{% set n.v = 2 %}");
    }

    private static void assertMessage(String fragment, String template) {
        var e = assertThrows(TemplateException.class, () -> render(template));
        assertTrue(e.getMessage().contains(fragment), "expected '" + fragment + "' in: " + e.getMessage());
    }
}
