// One table per construct: template, context (JSON) and the exact expected output. The
// expectations are written by hand from Jinja2/Python semantics and were checked against Python
// jinja2 configured as transformers configures it (see tools/make_template_fixtures.py).
#include <gtest/gtest.h>

#include "render_case.h"

namespace zen::tmpl::test {
namespace {

TEST(TemplateConstructs, Whitespace) {
  const RenderCase cases[] = {
      {"a\n{% if true %}\nb\n{% endif %}\nc", "{}", "a\nb\nc"},
      {"a\n    {% if true %}\n    b\n    {% endif %}\nc", "{}", "a\n    b\nc"},
      {"a\n  {%+ if true %}b{% endif %}", "{}", "a\n  b"},
      {"a  {%- if true %} b {% endif -%}  c", "{}", "a b c"},
      {"x {{- 1 -}} y", "{}", "x1y"},
      {"a\n  {# note #}\nb", "{}", "a\nb"},
      {"a {#- note -#} b", "{}", "ab"},
      {"{% raw %}{{ not evaluated }}{% endraw %}", "{}", "{{ not evaluated }}"},
      {"line\r\nnext\r\n", "{}", "line\nnext"},
      {"a\n\n", "{}", "a\n"},
      {"{% raw %}  {% endraw %}\nX", "{}", "  X"},
      {"{{ 1 }}\n{{ 2 }}", "{}", "1\n2"},
      {"{% for i in [1, 2] %}\n  - {{ i }}\n{% endfor %}", "{}", "  - 1\n  - 2\n"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Literals) {
  const RenderCase cases[] = {
      {"{{ 'single' }} {{ \"double\" }} {{ 'a' 'b' }}", "{}", "single double ab"},
      {"{{ 'tab\\tnl\\nuni\\u00e9' }}", "{}", "tab\tnl\nunié"},
      {"{{ 42 }} {{ -7 }} {{ 1_000 }} {{ 0x1F }} {{ 0b101 }} {{ 0o17 }}", "{}",
       "42 -7 1000 31 5 15"},
      {"{{ 1.5 }} {{ 2.0 }} {{ 1e3 }} {{ 1e16 }} {{ 1e-5 }} {{ 0.1 + 0.2 }}", "{}",
       "1.5 2.0 1000.0 1e+16 1e-05 0.30000000000000004"},
      {"{{ true }} {{ False }} {{ none }} {{ None }}", "{}", "True False None None"},
      {"{{ [1, 'a', none, true, 1.5] }}", "{}", "[1, 'a', None, True, 1.5]"},
      {"{{ (1, 'a') }} {{ (1,) }} {{ () }}", "{}", "(1, 'a') (1,) ()"},
      {"{{ {'k': 'v', 'n': [1]} }}", "{}", "{'k': 'v', 'n': [1]}"},
      {"{{ [\"it's\", 'say \"x\"', 'both \\' \"'] }}", "{}",
       "[\"it's\", 'say \"x\"', 'both \\' \"']"},
      {"{{ ['\\n\\t\\x01', 'é'] }}", "{}", "['\\n\\t\\x01', 'é']"},
      {"{{ x }}|{{ x is defined }}", "{}", "|False"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Operators) {
  const RenderCase cases[] = {
      {"{{ 7 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 2 ** -1 "
       "}}",
       "{}", "3.5 3 -4 1 2 1024 0.5"},
      {"{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 10 - 2 - 3 }} {{ 2 ** 3 ** 2 }}", "{}", "7 9 5 64"},
      {"{{ 1 + 1.0 }} {{ 3 * 1.5 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }} {{ true + 1 }}", "{}",
       "2.0 4.5 3.0 0.5 2"},
      {"{{ 'ab' + 'cd' }} {{ 'ab' * 2 }} {{ [1] + [2] }} {{ [0] * 3 }}", "{}",
       "abcd abab [1, 2] [0, 0, 0]"},
      {"{{ 'n=' ~ 1 ~ none ~ missing ~ [2] }}", "{}", "n=1None[2]"},
      {"{{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ 1 == 1.0 }} {{ 'a' != 'b' }} {{ [1, 2] < [1, 3] }}",
       "{}", "True False True True True"},
      {"{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }} {{ 'x' in "
       "missing }}",
       "{}", "True True True True False"},
      {"{{ true and 'yes' }} {{ 0 or 'fallback' }} {{ not [] }} {{ none or 0 }}", "{}",
       "yes fallback True 0"},
      {"{{ 'y' if 1 else 'n' }} {{ 'y' if 0 else 'n' }} [{{ 'y' if 0 }}]", "{}", "y n []"},
      {"{{ -1|abs }} {{ -(2 + 3) }} {{ +4 }}", "{}", "1 -5 4"},
      {"{{ x is defined and x > 1 }}", "{\"x\": 5}", "True"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Access) {
  const RenderCase cases[] = {
      {"{{ d.a }} {{ d['a'] }} {{ d.list.1 }} {{ d['list'][-1] }}",
       "{\"d\": {\"a\": 1, \"list\": [1, 2, 3]}}", "1 1 2 3"},
      {"{{ s[0] }} {{ s[-1] }} {{ s[1:3] }} {{ s[::-1] }} {{ s[::2] }}", "{\"s\": \"héllo\"}",
       "h o él olléh hlo"},
      {"{{ l[1:] }} {{ l[:-1] }} {{ l[::-1] }} {{ l[5:] }} {{ (1, 2, 3)[1:] }}",
       "{\"l\": [1, 2, 3]}", "[2, 3] [1, 2] [3, 2, 1] [] (2, 3)"},
      {"{{ d.missing }}|{{ l[9] }}|{{ none.attr }}|", "{\"d\": {}, \"l\": []}", "|||"},
      {"{{ d.items is callable }} {{ d.pop is defined }}", "{\"d\": {\"items\": 1}}", "True False"},
      {"{{ d['items'] }} {{ d.get('items') }} {{ d.get('no', 'dflt') }} {{ d.get('no') }}",
       "{\"d\": {\"items\": 1}}", "1 1 dflt None"},
      {"{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %} {{ d.keys()|list }} {{ "
       "d.values()|list }}",
       "{\"d\": {\"b\": 1, \"a\": 2}}", "b=1;a=2; ['b', 'a'] [1, 2]"},
      {"{{ d.keys() }} {{ d.items() }}", "{\"d\": {\"a\": 1}}",
       "dict_keys(['a']) dict_items([('a', 1)])"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, StringMethods) {
  const RenderCase cases[] = {
      {"{{ '  a b  '.strip() }}|{{ 'xxaxx'.strip('x') }}|{{ '  a'.lstrip() }}|{{ 'a  '.rstrip() "
       "}}|",
       "{}", "a b|a|a|a|"},
      {"{{ 'a,b,,c'.split(',') }} {{ '  a  b '.split() }} {{ 'a b c'.split(' ', 1) }} {{ "
       "'a,b,c'.rsplit(',', 1) }}",
       "{}", "['a', 'b', '', 'c'] ['a', 'b'] ['a', 'b c'] ['a,b', 'c']"},
      {"{{ 'Hello'.startswith('He') }} {{ 'Hello'.endswith(('x', 'lo')) }} {{ "
       "'Hello'.startswith('l', 2) }}",
       "{}", "True True True"},
      {"{{ 'Hello'.upper() }} {{ 'Hello'.lower() }} {{ 'hello world'.title() }} {{ "
       "\"it's\".title() }} {{ 'hELLO'.capitalize() }}",
       "{}", "HELLO hello Hello World It'S Hello"},
      {"{{ 'aXbX'.replace('X', '-') }} {{ 'aaa'.replace('a', 'b', 2) }} {{ 'ab'.replace('', '.') "
       "}}",
       "{}", "a-b- bba .a.b."},
      {"{{ 'abcabc'.find('c') }} {{ 'abc'.find('z') }} {{ 'abcabc'.rfind('a') }} {{ "
       "'aaa'.count('a') }} {{ 'héllo'.index('l') }}",
       "{}", "2 -1 3 3 2"},
      {"{{ '-'.join(['a', 'b', 'c']) }} {{ ', '.join('xy') }}", "{}", "a-b-c x, y"},
      {"{{ '{}+{}={x}'.format(1, 2, x=3) }} {{ '{:>4}|{:<3}|{:^5}|{:.2f}|{:03d}'.format('a', 'b', "
       "'c', 3.14159, 7) }}",
       "{}", "1+2=3    a|b  |  c  |3.14|007"},
      {"{{ '%s is %d years' % ('Al', 30) }} {{ '%.1f%%' % 12.34 }} {{ '%(n)s!' % {'n': 'hi'} }} {{ "
       "'%5s|%-5s|' % ('a', 'b') }}",
       "{}", "Al is 30 years 12.3% hi!     a|b    |"},
      {"{{ 'a\\nb\\r\\nc'.splitlines() }} {{ 'abc'.isalpha() }} {{ '123'.isdigit() }} {{ ' "
       "'.isspace() }} {{ 'ab'.islower() }} {{ 'AB'.isupper() }}",
       "{}", "['a', 'b', 'c'] True True True True True"},
      {"{{ 'v' % missing }} {{ 'ab' % [] }} {{ '%s|' % missing }}", "{}", "v ab |"},
      {"{{ 'x'.center(5) }}|{{ 'x'.ljust(3, '.') }}|{{ 'x'.rjust(3) }}|{{ '42'.zfill(5) }}|{{ "
       "'a=b=c'.partition('=') }}",
       "{}", "  x  |x..|  x|00042|('a', '=', 'b=c')"},
      {"{{ 'prefix-name'.removeprefix('prefix-') }} {{ 'file.txt'.removesuffix('.txt') }}", "{}",
       "name file"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Loops) {
  const RenderCase cases[] = {
      {"{% for x in [1, 2, 3] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ "
       "loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}",
       "{}", "1032TrueFalse3;2121FalseFalse3;3210FalseTrue3;"},
      {"{% for x in 'abc' %}{{ loop.previtem }}>{{ x }}<{{ loop.nextitem }} {% endfor %}", "{}",
       ">a<b a>b<c b>c< "},
      {"{% for x in range(4) %}{{ loop.cycle('odd', 'even') }} {% endfor %}", "{}",
       "odd even odd even "},
      {"{% for x in [1, 1, 2, 1] %}{% if loop.changed(x) %}{{ x }}{% endif %}{% endfor %}", "{}",
       "121"},
      {"{% for x in [] %}never{% else %}empty{% endfor %}", "{}", "empty"},
      {"{% for x in range(10) if x is odd %}{{ x }}{{ '/' ~ loop.length if loop.last }}{% endfor "
       "%}",
       "{}", "13579/5"},
      {"{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break "
       "%}{% endif %}{{ x }}{% endfor %}",
       "{}", "0134"},
      {"{% for a, b in [[1, 2], (3, 4)] %}{{ a + b }},{% endfor %}", "{}", "3,7,"},
      {"{% for k in {'b': 1, 'a': 2} %}{{ k }}{% endfor %}", "{}", "ba"},
      {"{% for row in [[1, 2], [3]] %}{% for c in row %}{{ loop.index }}{% endfor %}|{{ loop.index "
       "}};{% endfor %}",
       "{}", "12|1;1|2;"},
      {"{% for item in tree recursive %}{{ item.name }}{% if item.children %}({{ "
       "loop(item.children) }}){% endif %}{% endfor %}",
       "{\"tree\": [{\"name\": \"a\", \"children\": [{\"name\": \"b\", \"children\": []}, "
       "{\"name\": \"c\"}]}, {\"name\": \"d\"}]}",
       "a(bc)d"},
      {"{% for item in [[0, [1]], 2] recursive %}{% if item is iterable %}{{ loop(item) }}{% else "
       "%}{{ item }}@{{ loop.depth }} {% endif %}{% endfor %}",
       "{}", "0@2 1@3 2@1 "},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Scoping) {
  const RenderCase cases[] = {
      {"{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}", "{}", "1"},
      {"{% set x = 1 %}{% if true %}{% set x = 2 %}{% endif %}{{ x }}", "{}", "2"},
      {"{% for i in range(3) %}{% if i == 1 %}{% set y = 'set' %}{% endif %}[{{ y }}]{% endfor %}",
       "{}", "[][set][]"},
      {"{% set ns = namespace(count=0, found=false) %}{% for i in range(3) %}{% set ns.count = "
       "ns.count + i %}{% endfor %}{{ ns.count }} {{ ns.found }}",
       "{}", "3 False"},
      {"{% set ns = namespace({'a': 1}, b=2) %}{{ ns.a }}{{ ns.b }} {{ ns }}", "{}",
       "12 <Namespace {'a': 1, 'b': 2}>"},
      {"{% set a, b = 1, 2 %}{{ b }}{{ a }} {% set t = 1, 2 %}{{ t }}", "{}", "21 (1, 2)"},
      {"{% set block %}\n  Hi {{ name }}\n{% endset %}[{{ block }}]", "{\"name\": \"Ann\"}",
       "[  Hi Ann\n]"},
      {"{% set shout | upper | trim %} hi {% endset %}{{ shout }}", "{}", "HI"},
      {"{% with a = 1, b = a_outer %}{{ a }}{{ b }}{% endwith %}[{{ a }}]", "{\"a_outer\": 2}",
       "12[]"},
      {"{% filter upper %}hello {{ 'x' }}{% endfilter %}", "{}", "HELLO X"},
      {"{% set messages = messages[1:] %}{{ messages|length }}", "{\"messages\": [1, 2, 3]}", "2"},
      {"{% generation %}{% set z = 1 %}kept{% endgeneration %}[{{ z }}]", "{}", "kept[]"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Macros) {
  const RenderCase cases[] = {
      {"{% macro greet(name, greeting='Hello') %}{{ greeting }}, {{ name }}!{% endmacro %}{{ "
       "greet('Ann') }} {{ greet('Bo', greeting='Hi') }} {{ greet(greeting='Yo', name='Cy') }}",
       "{}", "Hello, Ann! Hi, Bo! Yo, Cy!"},
      {"{% macro m(a, b=a * 2) %}{{ a }}-{{ b }}{% endmacro %}{{ m(3) }}", "{}", "3-6"},
      {"{% macro m(a) %}[{{ a }}]{% endmacro %}{{ m() }}", "{}", "[]"},
      {"{% macro m() %}{{ varargs }} {{ kwargs }}{% endmacro %}{{ m(1, 2, k='v') }}", "{}",
       "(1, 2) {'k': 'v'}"},
      {"{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') "
       "%}bold{% endcall %}",
       "{}", "<b>bold</b>"},
      {"{% macro each(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% "
       "call(x) each([1, 2]) %}<{{ x }}>{% endcall %}",
       "{}", "<1><2>"},
      {"{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * fact(n - 1)|int }}{% endif %}{% "
       "endmacro %}{{ fact(5) }}",
       "{}", "120"},
      {"{% macro m() %}{{ outer }}{% endmacro %}{% set outer = 'late' %}{{ m() }}", "{}", "late"},
      {"{% macro m() %}x{% endmacro %}{{ m.name }} {{ m is callable }}", "{}", "m True"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Filters) {
  const RenderCase cases[] = {
      {"{{ 'hello world'|title }} {{ \"it's\"|title }} {{ 'hELLO'|capitalize }} {{ 'Ab'|upper }}{{ "
       "'Ab'|lower }}",
       "{}", "Hello World It's Hello ABab"},
      {"[{{ '  x \\n'|trim }}] [{{ 'xxaxx'|trim('x') }}] [{{ missing|trim }}]", "{}", "[x] [a] []"},
      {"{{ [1, 2, 3]|length }} {{ 'héllo'|length }} {{ {'a': 1}|count }} {{ missing|length }}",
       "{}", "3 5 1 0"},
      {"{{ [3, 1, 2]|first }} {{ [3, 1, 2]|last }} {{ 'abc'|first }} {{ []|first is undefined }}",
       "{}", "3 2 a True"},
      {"{{ [1, 2, 3]|join }} {{ [1, 2, 3]|join(', ') }} {{ users|join('/', attribute='n') }}",
       "{\"users\": [{\"n\": \"a\"}, {\"n\": \"b\"}]}", "123 1, 2, 3 a/b"},
      {"{{ missing|default('d') }} {{ none|default('d') }} {{ ''|default('d') }} {{ "
       "''|default('d', true) }} {{ 0|d('zero', true) }}",
       "{}", "d None  d zero"},
      {"{{ {'a': [1, 'é', none, true, 1.5]}|tojson }}", "{}",
       "{\"a\": [1, \"é\", null, true, 1.5]}"},
      {"{{ {'b': 1, 'a': {'c': []}}|tojson(indent=2, sort_keys=true) }}", "{}",
       "{\n  \"a\": {\n    \"c\": []\n  },\n  \"b\": 1\n}"},
      {"{{ {'a': 'é\\n\"'}|tojson(ensure_ascii=true) }} {{ [1, 2]|tojson(separators=(',', ':')) }}",
       "{}", "{\"a\": \"\\u00e9\\n\\\"\"} [1,2]"},
      {"{{ '42'|int + 1 }} {{ '4.7'|int }} {{ 'x'|int }} {{ 'x'|int(-1) }} {{ 'ff'|int(base=16) }} "
       "{{ 3.9|int }} {{ '2.5'|float }} {{ 'x'|float }}",
       "{}", "43 4 0 -1 255 3 2.5 0.0"},
      {"{{ 2.5|round }} {{ 3.5|round }} {{ 2.675|round(2) }} {{ 1.21|round(1, 'ceil') }} {{ "
       "1.29|round(1, 'floor') }} {{ 7|round }}",
       "{}", "2.0 4.0 2.67 1.3 1.2 7"},
      {"{{ [3, 1, 2]|sort }} {{ [3, 1, 2]|sort(reverse=true) }} {{ ['b', 'A', 'c']|sort }} {{ "
       "['b', 'A', 'c']|sort(case_sensitive=true) }}",
       "{}", "[1, 2, 3] [3, 2, 1] ['A', 'b', 'c'] ['A', 'b', 'c']"},
      {"{{ people|sort(attribute='age')|map(attribute='name')|join(',') }}",
       "{\"people\": [{\"name\": \"x\", \"age\": 30}, {\"name\": \"y\", \"age\": 20}]}", "y,x"},
      {"{{ [1, 2, 1, 3]|unique|list }} {{ ['a', 'A', 'b']|unique|list }} {{ [1, 2, 3]|reverse|list "
       "}} {{ 'abc'|reverse }}",
       "{}", "[1, 2, 3] ['a', 'b'] [3, 2, 1] cba"},
      {"{{ [1, 2, 3, 4]|select('even')|list }} {{ [1, 2, 3, 4]|reject('even')|list }} {{ [0, 1, "
       "'', 'a']|select|list }}",
       "{}", "[2, 4] [1, 3] [1, 'a']"},
      {"{{ msgs|selectattr('role', 'equalto', 'user')|map(attribute='c')|list }} {{ "
       "msgs|rejectattr('role', '==', 'user')|list|length }}",
       "{\"msgs\": [{\"role\": \"user\", \"c\": 1}, {\"role\": \"bot\", \"c\": 2}, {\"role\": "
       "\"user\", \"c\": 3}]}",
       "[1, 3] 1"},
      {"{{ ['a', 'b']|map('upper')|join }} {{ items|map(attribute='x', default='-')|join }}",
       "{\"items\": [{\"x\": 1}, {}]}", "AB 1-"},
      {"{{ [1, 2, 3]|sum }} {{ [1, 2, 3]|sum(start=10) }} {{ [1, 5, 3]|max }} {{ [4, 2, 8]|min }} "
       "{{ ['b', 'A']|max }}",
       "{}", "6 16 5 2 b"},
      {"{{ {'b': 1, 'a': 2}|dictsort }} {{ {'b': 1, 'a': 2}|dictsort(by='value') }} {{ {'a': "
       "1}|items|list }}",
       "{}", "[('a', 2), ('b', 1)] [('b', 1), ('a', 2)] [('a', 1)]"},
      {"{{ 'a\\nb'|indent }}|{{ 'a\\nb'|indent(2, true) }}|{{ 'a\\n\\nb'|indent(1, blank=true) }}",
       "{}", "a\n    b|  a\n  b|a\n \n b"},
      {"{{ 'a <b> & \"c\"'|escape }} {{ '<b>x</b>'|safe }} {{ 'a b  c'|wordcount }} {{ '<p>a  "
       "b</p>'|striptags }}",
       "{}", "a &lt;b&gt; &amp; &#34;c&#34; <b>x</b> 3 a b"},
      {"{{ 'aXbX'|replace('X', '') }} {{ '%s=%s'|format('k', 1) }} {{ 12|string ~ 'px' }} {{ [1, "
       "2, 3, 4, 5]|batch(2)|list }}",
       "{}", "ab k=1 12px [[1, 2], [3, 4], [5]]"},
      {"{{ 'a long sentence here'|truncate(12) }} {{ 'a long sentence here'|truncate(12, true) }} "
       "{{ 'abc'|center(7) }}|",
       "{}", "a long... a long se...   abc  |"},
      {"{{ [1, 2, 3]|list }} {{ 'ab'|list }} {{ {'k': 1}|list }} {{ range(3)|list }}", "{}",
       "[1, 2, 3] ['a', 'b'] ['k'] [0, 1, 2]"},
      {"{% for g, items in rows|groupby('k') %}{{ g }}:{{ items|map(attribute='v')|join(',') }};{% "
       "endfor %}",
       "{\"rows\": [{\"k\": \"b\", \"v\": 1}, {\"k\": \"a\", \"v\": 2}, {\"k\": \"b\", \"v\": 3}]}",
       "a:2;b:1,3;"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Tests) {
  const RenderCase cases[] = {
      {"{{ x is defined }} {{ missing is defined }} {{ missing is undefined }} {{ none is none }} "
       "{{ 0 is none }}",
       "{\"x\": 0}", "True False True True False"},
      {"{{ 'a' is string }} {{ 1 is string }} {{ 1 is number }} {{ 1.5 is number }} {{ true is "
       "number }} {{ 1 is integer }} {{ true is integer }} {{ 1.0 is float }}",
       "{}", "True False True True True True False True"},
      {"{{ true is boolean }} {{ 1 is boolean }} {{ true is true }} {{ 1 is true }} {{ false is "
       "false }} {{ 0 is false }}",
       "{}", "True False True False True False"},
      {"{{ {} is mapping }} {{ [] is mapping }} {{ [] is sequence }} {{ 'a' is sequence }} {{ 1 is "
       "sequence }} {{ 'a' is iterable }} {{ 1 is iterable }} {{ none is iterable }}",
       "{}", "True False True True False True False False"},
      {"{{ 3 is odd }} {{ 3 is even }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(2) }}", "{}",
       "True False True False"},
      {"{{ 1 is eq 1 }} {{ 1 is equalto 2 }} {{ 1 is ne 2 }} {{ 2 is gt 1 }} {{ 2 is ge 2 }} {{ 1 "
       "is lt 2 }} {{ 2 is le 1 }} {{ 1 is in [1, 2] }}",
       "{}", "True False True True True True False True"},
      {"{{ 'abc' is lower }} {{ 'ABC' is upper }} {{ 'Abc' is lower }} {{ [1, 'z'] is lower }}",
       "{}", "True True False True"},
      {"{{ range is callable }} {{ 'a' is callable }} {{ 'upper' is filter }} {{ 'odd' is test }} "
       "{{ 'nope' is filter }} {{ none is sameas none }}",
       "{}", "True False True True False True"},
      {"{{ x is not none }} {{ x is not string }}", "{\"x\": \"s\"}", "True False"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Globals) {
  const RenderCase cases[] = {
      {"{{ range(3)|list }} {{ range(2, 8, 3)|list }} {{ range(3, 0, -1)|list }} {{ range(3) }}",
       "{}", "[0, 1, 2] [2, 5] [3, 2, 1] range(0, 3)"},
      {"{{ dict(a=1) }} {{ dict([('b', 2)]) }} {{ dict({'c': 3}, d=4) }}", "{}",
       "{'a': 1} {'b': 2} {'c': 3, 'd': 4}"},
      {"{% set c = cycler('x', 'y') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}", "{}", "xyx"},
      {"{% set j = joiner(', ') %}{% for i in [1, 2, 3] %}{{ j() }}{{ i }}{% endfor %}", "{}",
       "1, 2, 3"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Generators) {
  const RenderCase cases[] = {
      {"{{ ([] | select) is iterable }} {{ ([1] | map('string')) is sequence }} {{ (none | "
       "map('upper')) | list }}",
       "{}", "True False []"},
      {"{% set g = [1, 2] | select %}{{ g | list }}{{ g | list }}", "{}", "[1, 2][]"},
      {"{% if [] | select %}generators are true{% endif %}", "{}", "generators are true"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

TEST(TemplateConstructs, Markup) {
  const RenderCase cases[] = {
      {"{{ '<b>'|safe + '<i>' }} {{ '<i>' + '<b>'|safe }} {{ ('<p>%s</p>'|safe) % '<x>' }}", "{}",
       "<b>&lt;i&gt; &lt;i&gt;<b> <p>&lt;x&gt;</p>"},
      {"{{ ('<b>'|safe) is escaped }} {{ '<b>' is escaped }} {{ ['x'|safe] }}", "{}",
       "True False [Markup('x')]"},
  };
  for (const RenderCase& c : cases) expect_renders(c);
}

}  // namespace
}  // namespace zen::tmpl::test
