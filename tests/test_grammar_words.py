"""The grammar reader's words on small graphs made here: values written as plain nouns, words that restate a
value's property or a unit, names that end in a number, ranges without "between", a negated verb of a node's own
place, directions said after the order, misspelled words. Every answer is checked against the graph's rows."""

from __future__ import annotations

import pytest

from kgqa.kg.db import Graph

SHOP = ("CREATE NODE TABLE Goods(goods_id INT64, goods_name STRING, kind_code STRING, fare_in_dollars DOUBLE, "
        "fare_in_euros DOUBLE, street_2 STRING, state_province STRING, PRIMARY KEY(goods_id));\n")
GOODS = ("goods_id,goods_name,kind_code,fare_in_dollars,fare_in_euros,street_2,state_province\n"
         "1,coat,Clothes,100,90,Elm Row,Ohio\n2,hat,Clothes,20,18,Oak Lane,Ohio\n"
         "3,saw,Hardware,50,45,Elm Row,Utah\n4,drill,Hardware,80,72,Pine Way,Utah\n5,bread,Food,3,2.5,Oak Lane,Ohio\n")


@pytest.fixture
def shop(tmp_path, small_graph):
    folder = small_graph(tmp_path / "graphs", "shop", SHOP, {"Goods": GOODS})
    with Graph(folder, read_only=True) as g:
        yield g


def reader(g: Graph):
    """Returns ``(compiler, answer)``: ``answer(question)`` is the sorted rows (the columns asked) of the grammar reader's first plan
    (the question's misspellings mended first, as the pipeline does); a decline fails with what was not read."""
    from kgqa.kg.registry import graph_spec
    from kgqa.planner.compiler import Compiler
    from kgqa.planner.schema_view import SchemaView

    c = Compiler(SchemaView.from_graph(g, graph_spec(g)))

    def answer(question: str, ordered: bool = False):
        question = c.spelled(question)
        plans = c.grammar(question, c.value_mentions(question))
        assert plans, (question, c.unread(question, c.value_mentions(question)))
        cut = len(plans[0].query.evidence)  # the evidence columns, returned last, left out
        got = [list(x)[:len(x) - cut] for x in g.query(plans[0].cypher, plans[0].params).rows]
        return got if ordered else sorted(got)

    return c, answer


def test_values_said_as_plain_nouns_and_groups_with_each(shop):
    """'Clothes' said "clothes" (a plural noun) and 'Hardware' said as the modifier of its own label ("the hardware
    goods"); "the number of goods with each kind code" groups by the code."""
    _, answer = reader(shop)
    assert answer("What is the average fare in dollars of clothes?") == [[60.0]]
    assert [row[0] for row in answer("What is the name of the hardware goods with the highest fare in dollars?")] \
        == ["drill"]
    assert answer("Show the number of goods with each kind code.") == [["Clothes", 2], ["Food", 1], ["Hardware", 2]]


def test_a_value_after_its_property_word_and_a_unit_that_picks_the_property(shop):
    """"in state Ohio", "in the state of Ohio": the word before the value restates its property; "(in Euro)" picks
    fare_in_euros of the two fares; a unit said that no property holds leaves the choice open."""
    c, answer = reader(shop)
    assert answer("How many goods are in state Ohio?") == [[3]]
    assert answer("How many goods are there in the state of Utah?") == [[2]]
    assert answer("What is the average fare (in Euro) of all goods?") == [[45.5]]
    q = "What is the average fare of all goods?"
    assert c.grammar(q, c.value_mentions(q)) == [] and "fare" in " ".join(c.unread(q, c.value_mentions(q)))


def test_a_name_that_ends_in_a_number_and_a_range_said_with_to(shop):
    """"the street 2 of the goods" names street_2 (the 2 is no value); "a fare in dollars of 20 to 80" is a range."""
    _, answer = reader(shop)
    assert answer("What are the street 2 of all goods?") == [["Elm Row"], ["Elm Row"], ["Oak Lane"], ["Oak Lane"],
                                                               ["Pine Way"]]
    assert answer("List the names of goods with a fare in dollars of 20 to 80.") == [["drill"], ["hat"], ["saw"]]


def test_misspelled_words_are_mended_toward_the_graph_and_cue_words(shop):
    """"minumum" is minimum, "farre" fare; a word two graphs' words are equally near, or a value, stays."""
    c, answer = reader(shop)
    assert c.spelled("What is the minumum farre in dollars of goods?") == "What is the minimum fare in dollars of goods?"
    assert answer("What is the minumum fare in dollars of goods?") == [[3.0]]
    assert c.spelled("List goods named 'cot'.") == "List goods named 'cot'."  # quoted: as written
    assert c.spelled("Is bread Food?") == "Is bread Food?"  # English words and values


def test_a_negated_verb_of_the_nodes_own_place_denies_the_value(tmp_path, small_graph):
    """"pupils who do not live in the town with code OSL": the pupils' own town, not their hall: town_code <> 'OSL';
    "pupils who do not live in any hall" is no hall at all."""
    folder = small_graph(tmp_path / "graphs", "school",
                         "CREATE NODE TABLE Pupil(PupID INT64, LName STRING, town_code STRING, PRIMARY KEY(PupID));\n"
                         "CREATE NODE TABLE Hall(HallID INT64, hall_name STRING, PRIMARY KEY(HallID));\n"
                         "CREATE REL TABLE Lives_in(FROM Pupil TO Hall);\n",
                         {"Pupil": "PupID,LName,town_code\n1,Ash,OSL\n2,Birk,BRG\n3,Cole,BRG\n4,Dahl,OSL\n",
                          "Hall": "HallID,hall_name\n1,North\n",
                          "Lives_in": "from,to\n1,1\n2,1\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert [row[0] for row in answer("What are the last names of pupils who do not live in the town with code "
                                         "OSL?")] == ["Birk", "Cole"]
        assert [row[0] for row in answer("What are the last names of pupils who do not live in any hall?")] == \
            ["Cole", "Dahl"]


def test_glued_labels_graph_name_words_time_heads_and_the_way_after_an_order(tmp_path, small_graph):
    """"the rooms" name the label classroom (a word glued before it); "the music artists" of a graph named for music
    are its artists; "their founding years" is Founded; "sorted by the number of rooms in descending order"."""
    folder = small_graph(tmp_path / "graphs", "music_school",
                         "CREATE NODE TABLE classroom(room_no INT64, building STRING, capacity INT64, "
                         "PRIMARY KEY(room_no));\n"
                         "CREATE NODE TABLE artist(artist_id INT64, artist_name STRING, Age INT64, Founded INT64, "
                         "PRIMARY KEY(artist_id));\n",
                         {"classroom": "room_no,building,capacity\n1,East,30\n2,East,60\n3,West,90\n",
                          "artist": "artist_id,artist_name,Age,Founded\n1,Ana,30,1990\n2,Bo,40,1980\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("How many rooms does the East building have?") == [[2]]
        assert answer("List the age of all music artists.") == [[30], [40]]
        assert answer("List the artist names ordered by their founding years.", ordered=True) == [["Bo"], ["Ana"]]
        assert answer("Show each building and the number of rooms in it, sorted by the number of rooms in descending "
                      "order.", ordered=True) == [["East", 2], ["West", 1]]


def test_the_substring_cue_and_a_property_said_across_of(tmp_path, small_graph):
    """"whose name has the substring 'ar'" searches the name (the parser lemmatizes "substring" as a verb); "the
    description of the fund kind" is Fund_Kind_Description, while "the code of the site" is the site's code."""
    folder = small_graph(tmp_path / "graphs", "funds",
                         "CREATE NODE TABLE Ref_Fund_Codes(Fund_Kind_Code STRING, Fund_Kind_Description STRING, "
                         "PRIMARY KEY(Fund_Kind_Code));\n"
                         "CREATE NODE TABLE Site(Site_Code STRING, site_name STRING, PRIMARY KEY(Site_Code));\n",
                         {"Ref_Fund_Codes": "Fund_Kind_Code,Fund_Kind_Description\nGV,Government\nPR,Private\n",
                          "Site": "Site_Code,site_name\nS1,Harbor\nS2,Hill\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("List the names of the sites whose name has the substring 'ar'.") == [["Harbor"]]
        assert answer("Return the description of the fund kind that has the code GV.") == [["Government"]]
        assert answer("What is the code of the site named Hill?") == [["S2"]]


def test_number_heads_ages_said_twice_and_values_before_their_property(tmp_path, small_graph):
    """"an enrollment size of above 500" is Enrollment; "whose age is older than 30" compares the age once; "the schools
    in the North area" take the area 'North', not the school named so."""
    folder = small_graph(tmp_path / "graphs", "colleges",
                         "CREATE NODE TABLE School(school_id INT64, school_name STRING, Enrollment INT64, "
                         "area STRING, region STRING, PRIMARY KEY(school_id));\n"
                         "CREATE NODE TABLE Teacher(teacher_id INT64, teacher_name STRING, age INT64, "
                         "PRIMARY KEY(teacher_id));\n"
                         "CREATE NODE TABLE Course(course_id INT64, course_name STRING, PRIMARY KEY(course_id));\n"
                         "CREATE NODE TABLE Enrollment_record(record_id INT64, grade STRING, PRIMARY KEY(record_id));\n"
                         "CREATE REL TABLE HAS_COURSE(FROM Enrollment_record TO Course);\n",
                         {"School": "school_id,school_name,Enrollment,area,region\n1,Elm,900,North,South\n"
                                    "2,Oak,300,South,North\n3,Ash,700,North,North\n4,North,100,East,East\n",
                          "Teacher": "teacher_id,teacher_name,age\n1,Ann,25\n2,Ben,41\n3,Cal,35\n",
                          "Course": "course_id,course_name\n1,Math\n2,Math\n3,Art\n",
                          "Enrollment_record": "record_id,grade\n1,A\n2,B\n3,A\n4,C\n5,B\n",
                          "HAS_COURSE": "from,to\n1,1\n2,1\n3,2\n4,2\n5,3\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("Which schools have an enrollment size of above 500? Give their names.") == [["Ash"], ["Elm"]]
        assert answer("List the names of teachers whose age is older than 30.") == [["Ben"], ["Cal"]]
        assert answer("List the names of the schools in the North area.") == [["Ash"], ["Elm"]]


def test_same_as_a_named_node_and_two_properties_the_same(tmp_path, small_graph):
    """"in the same department as Ann": the department Ann's edge reaches, Ann (a first name) among them, or not with
    "excluding"; a band in the same department as another band named by its name is not that band;
    "the sender and receiver banks are in the same country": two properties equal, however their words are said."""
    folder = small_graph(tmp_path / "graphs", "office",
                         "CREATE NODE TABLE Dept(dept_id INT64, dept_name STRING, PRIMARY KEY(dept_id));\n"
                         "CREATE NODE TABLE Staff(staff_id INT64, first_name STRING, PRIMARY KEY(staff_id));\n"
                         "CREATE NODE TABLE Wire(wire_id INT64, sender_bank STRING, sender_bank_country STRING, "
                         "receiver_bank STRING, receiver_bank_country STRING, PRIMARY KEY(wire_id));\n"
                         "CREATE NODE TABLE Band(band_id INT64, band_name STRING, PRIMARY KEY(band_id));\n"
                         "CREATE REL TABLE STAFF_HAS_DEPT(FROM Staff TO Dept);\n"
                         "CREATE REL TABLE BAND_HAS_DEPT(FROM Band TO Dept);\n",
                         {"Dept": "dept_id,dept_name\n1,Law\n2,Art\n",
                          "Staff": "staff_id,first_name\n1,Ann\n2,Ben\n3,Cal\n4,Dan\n",
                          "Wire": "wire_id,sender_bank,sender_bank_country,receiver_bank,receiver_bank_country\n"
                                  "1,B1,Chile,B2,Chile\n2,B3,Peru,B4,Chile\n3,B5,Peru,B6,Peru\n",
                          "STAFF_HAS_DEPT": "from,to\n1,1\n2,2\n3,1\n4,2\n",
                          "Band": "band_id,band_name\n1,Aurora\n2,Bloom\n3,Cirrus\n",
                          "BAND_HAS_DEPT": "from,to\n1,1\n2,1\n3,2\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("List the first names of staff in the same dept as Ann.") == [["Ann"], ["Cal"]]
        assert answer("List the first names of staff in the same dept as someone with the first name Ann, "
                      "excluding Ann.") == [["Cal"]]
        # named by its whole display name, the named node is not one of the others
        assert answer("Which bands are in the same dept as Aurora?") == [["Bloom", 2]]  # with the key
        assert answer("List the ids of wires where the sender and receiver banks are in the same country.") == \
            [[1], [3]]
        assert answer("List the ids of wires where the receiver bank's country is the same as the sender bank's "
                      "country.") == [[1], [3]]
        assert answer("Which wires have a sender bank country and receiver bank country that are the same? "
                      "Give their ids.") == [[1], [3]]


def test_most_recently_by_the_time_its_verb_names(tmp_path, small_graph):
    """"founded most recently": the year named as the verb (Founded); "opened most recently": the date whose name
    holds it (Opened_On), not the other date."""
    folder = small_graph(tmp_path / "graphs", "unis",
                         "CREATE NODE TABLE Uni(uni_id INT64, uni_name STRING, Founded INT64, Opened_On DATE, "
                         "Closed_On DATE, PRIMARY KEY(uni_id));\n",
                         {"Uni": "uni_id,uni_name,Founded,Opened_On,Closed_On\n1,Elm,1850,2001-01-01,2020-01-01\n"
                                 "2,Oak,1901,1999-01-01,2021-01-01\n3,Ash,1870,2005-01-01,2019-01-01\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert [row[0] for row in answer("Which uni was founded most recently? Give its name.")] == ["Oak"]
        assert [row[0] for row in answer("Which uni was opened most recently? Give its name.")] == ["Ash"]


def test_values_counted_the_most_times_and_more_than_twice(tmp_path, small_graph):
    """"occurs the fewest times" and "the most times" are "least/most often"; "used more than twice" bounds how many
    nodes hold each value asked; "the most common type code" counts the sales holding it, not the types listed once
    each; "the type that occurs most frequently" counts the sales joined to each type."""
    folder = small_graph(tmp_path / "graphs", "sales",
                         "CREATE NODE TABLE Sale_Type(type_code STRING, type_description STRING, "
                         "PRIMARY KEY(type_code));\n"
                         "CREATE NODE TABLE Sale(sale_id INT64, type_code STRING, clerk STRING, PRIMARY KEY(sale_id));\n"
                         "CREATE REL TABLE SALE_HAS_TYPE(FROM Sale TO Sale_Type);\n",
                         {"Sale_Type": "type_code,type_description\nA,Auction\nB,Barter\nC,Cash\n",
                          "Sale": "sale_id,type_code,clerk\n1,A,Ann\n2,A,Ann\n3,A,Ann\n4,B,Ben\n5,C,Ben\n6,C,Cal\n",
                          "SALE_HAS_TYPE": "from,to\n1,A\n2,A\n3,A\n4,B\n5,C\n6,C\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("Which clerk appears the most times?")[0][0] == "Ann"
        assert answer("Which clerks appear more than twice?") == [["Ann", 3]]
        assert answer("What is the most common sale type code?")[0][0] == "A"
        assert answer("Show the type code of sales that occurs the fewest times.")[0][0] == "B"
        assert answer("Show the description of the sale type that occurs most frequently.")[0][0] == "Auction"
        assert answer("What are the description and the count of each sale type?") == \
            [["A", "Auction", 3], ["B", "Barter", 1], ["C", "Cash", 2]]


def test_a_reference_label_own_name_said_alone(tmp_path, small_graph):
    """Location_Name of Ref_Locations is "the name of the location", as singer_name of singer is the singer's."""
    folder = small_graph(tmp_path / "graphs", "places",
                         "CREATE NODE TABLE Ref_Locations(Location_Code STRING, Location_Name STRING, "
                         "PRIMARY KEY(Location_Code));\n"
                         "CREATE NODE TABLE Staff(staff_id INT64, Staff_Name STRING, PRIMARY KEY(staff_id));\n",
                         {"Ref_Locations": "Location_Code,Location_Name\nx,Xanadu\ny,York\n",
                          "Staff": "staff_id,Staff_Name\n1,Ann\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("What are the name and code of each location?") == [["Xanadu", "x"], ["York", "y"]]


def test_how_many_values_are_there_and_a_condition_not_shown(tmp_path, small_graph):
    """"How many advisors are there?": the values Advisor takes, counted once each; "how many ratings have more than
    3 stars": one count, the stars only its condition."""
    folder = small_graph(tmp_path / "graphs", "reviews",
                         "CREATE NODE TABLE Pupil(pupil_id INT64, Advisor INT64, PRIMARY KEY(pupil_id));\n"
                         "CREATE NODE TABLE Film(film_id INT64, title STRING, PRIMARY KEY(film_id));\n"
                         "CREATE REL TABLE Rating(FROM Pupil TO Film, stars INT64);\n",
                         {"Pupil": "pupil_id,Advisor\n1,70\n2,70\n3,81\n",
                          "Film": "film_id,title\n1,Up\n2,Cars\n",
                          "Rating": "from,to,stars\n1,1,5\n2,1,4\n3,2,2\n1,2,3\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("How many advisors are there?") == [[2]]
        assert answer("How many ratings have more than 3 stars?") == [[2]]


def test_a_number_head_restates_the_property_before_it(tmp_path, small_graph):
    """"the budgeted amount" is Budgeted and "the invested amount" Invested, not the gifts' amount."""
    folder = small_graph(tmp_path / "graphs", "funds",
                         "CREATE NODE TABLE Budget(budget_id INT64, Budgeted INT64, Invested INT64, "
                         "PRIMARY KEY(budget_id));\n"
                         "CREATE NODE TABLE Gift(gift_id INT64, amount DOUBLE, PRIMARY KEY(gift_id));\n",
                         {"Budget": "budget_id,Budgeted,Invested\n1,100,50\n2,10,80\n3,5000,20\n",
                          "Gift": "gift_id,amount\n1,9999\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("How many budgets have a budgeted amount greater than 50?") == [[2]]
        assert answer("How many budgets have a budgeted amount smaller than the invested amount?") == [[1]]


def test_a_path_through_the_label_the_verb_names(tmp_path, small_graph):
    """"students who have taken Art courses": through takes and its section (a step longer), not through the
    department pupil and lecture share."""
    folder = small_graph(tmp_path / "graphs", "campus",
                         "CREATE NODE TABLE dept(dept_name STRING, PRIMARY KEY(dept_name));\n"
                         "CREATE NODE TABLE pupil(pid INT64, pname STRING, PRIMARY KEY(pid));\n"
                         "CREATE NODE TABLE lecture(lid INT64, title STRING, dept_name STRING, PRIMARY KEY(lid));\n"
                         "CREATE NODE TABLE section(sid INT64, term STRING, PRIMARY KEY(sid));\n"
                         "CREATE NODE TABLE takes(tid INT64, grade STRING, PRIMARY KEY(tid));\n"
                         "CREATE REL TABLE PUPIL_HAS_DEPT(FROM pupil TO dept);\n"
                         "CREATE REL TABLE LECTURE_HAS_DEPT(FROM lecture TO dept);\n"
                         "CREATE REL TABLE SECTION_HAS_LECTURE(FROM section TO lecture);\n"
                         "CREATE REL TABLE TAKES_HAS_PUPIL(FROM takes TO pupil);\n"
                         "CREATE REL TABLE TAKES_HAS_SECTION(FROM takes TO section);\n",
                         {"dept": "dept_name\nArt\nLaw\n",
                          "pupil": "pid,pname\n1,Ann\n2,Ben\n3,Cal\n",
                          "lecture": "lid,title,dept_name\n1,Paint,Art\n2,Torts,Law\n",
                          "section": "sid,term\n1,Fall\n2,Fall\n",
                          "takes": "tid,grade\n1,A\n2,B\n",
                          "PUPIL_HAS_DEPT": "from,to\n1,Art\n2,Law\n3,Art\n",
                          "LECTURE_HAS_DEPT": "from,to\n1,Art\n2,Law\n",
                          "SECTION_HAS_LECTURE": "from,to\n1,1\n2,2\n",
                          "TAKES_HAS_PUPIL": "from,to\n1,2\n2,1\n",
                          "TAKES_HAS_SECTION": "from,to\n1,1\n2,2\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("What are the pnames of pupils who have taken Art lectures?") == [["Ben"]]


def test_the_named_end_of_a_relationship_of_a_label_to_itself(tmp_path, small_graph):
    """"How many friends does Ann have?": Ann's edges counted; "persons who are friends with Ben": those whose
    edge reaches Ben (a relationship named by a noun points from a node to its friend); "a prereq for Topology":
    Topology's edge."""
    folder = small_graph(tmp_path / "graphs", "pals",
                         "CREATE NODE TABLE Human(name STRING, age INT64, PRIMARY KEY(name));\n"
                         "CREATE REL TABLE HumanFriend(FROM Human TO Human, year INT64);\n",
                         {"Human": "name,age\nAnn,30\nBen,40\nCal,50\n",
                          "HumanFriend": "from,to,year\nAnn,Ben,1\nAnn,Cal,2\nCal,Ben,3\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("How many friends does Ann have?") == [[2]]
        assert answer("Find the name of humans who are friends with Ben.") == [["Ann"], ["Cal"]]
    folder = small_graph(tmp_path / "graphs", "prereqs",
                         "CREATE NODE TABLE Unit(uid INT64, title STRING, PRIMARY KEY(uid));\n"
                         "CREATE REL TABLE prereq(FROM Unit TO Unit);\n",
                         {"Unit": "uid,title\n1,Algebra\n2,Calculus\n3,Topology\n", "prereq": "from,to\n3,2\n2,1\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("What is the title of the unit that is a prereq for Topology?") == [["Calculus"]]


STOCK = ("CREATE NODE TABLE Maker(makerID STRING, makerName STRING, town STRING, PRIMARY KEY(makerID));\n"
         "CREATE NODE TABLE Part(partID STRING, partName STRING, retired BOOLEAN, weight INT64, PRIMARY KEY(partID));\n"
         "CREATE REL TABLE MAKES(FROM Maker TO Part);\n")
STOCK_ROWS = {"Maker": "makerID,makerName,town\nm1,Acme,Oslo\nm2,Bolt Co,Rome\n",
              "Part": "partID,partName,retired,weight\np1,gear,true,5\np2,cog,false,12\np3,axle,true,30\n",
              "MAKES": "from,to\nm1,p1\nm1,p2\nm2,p3\n"}


def test_the_way_llm_written_questions_name_things(tmp_path, small_graph):
    """Names set apart as code ("the `makerName`"), the properties to show in parentheses after a label ("Which
    makers (show `makerID` and `makerName`) ...", beside the makers' names), the graph itself said ("in the graph", "in our database"), and a
    boolean property said as a state anywhere ("parts that are not retired", "makers that make retired parts",
    "parts with a retired status"), a ranking "based on the number of" nodes, a participle that restates the one
    relationship that joins them ("parts made"), and "Name" as a verb that asks."""
    folder = small_graph(tmp_path / "graphs", "stock", STOCK, STOCK_ROWS)
    with Graph(folder, read_only=True) as g:
        c, answer = reader(g)
        assert answer("List the `makerName` of makers in 'Oslo'.") == [["Acme"]]
        assert answer("Which makers (show `makerID` and `makerName`) make parts heavier than 20?") == \
            [["m2", "Bolt Co"]]
        assert answer("Which maker (`makerID`) makes the part 'gear'?") == [["Acme", "m1"]]  # named as ever, too
        assert answer("How many parts are in the graph?") == [[3]]
        assert answer("Which makers in our database are in Rome?") == [["Bolt Co", "m2"]]
        assert answer("Which parts are not retired?") == [["cog", "p2"]]
        assert answer("List all makers that make retired parts.") == [["Acme", "m1"], ["Bolt Co", "m2"]]
        assert answer("List the parts that have a retired status and a weight below 10.") == [["gear", "p1"]]
        # what a ranking is by, said as "based on the number of", of nodes whose participle restates the one join
        assert answer("List the top 1 makers based on the number of parts made.") == [["Acme", "m1", 2]]
        assert answer("Name the makers in Rome.") == [["Bolt Co"]]  # "Name" asks (for their names)
        # "the top 5" with no measure: all of them when no more than 5 match (the pipeline counts; one more is read)
        assert answer("List the top 5 parts heavier than 1.") == [["axle", "p3"], ["cog", "p2"], ["gear", "p1"]]
        # the extreme value a node is found by, shown beside it: one value for every row
        q = "Which maker makes the part with the highest weight?"
        plan = c.grammar(q, c.value_mentions(q))[0]
        assert [col.prop for col in plan.query.evidence] == ["weight"], plan.cypher
        assert [list(x) for x in g.query(plan.cypher, plan.params).rows] == [["Bolt Co", "m2", 30]]
        q = "List the top 2 parts heavier than 1."
        plan = c.grammar(q, c.value_mentions(q))[0]
        assert plan.query.unranked and plan.outline.unranked and plan.outline.limit == 2 and plan.cypher.endswith("LIMIT 3")


def test_the_reader_setting_sends_an_annotated_graph_to_the_grammar_reader(built_graphs):
    """``Settings.reader``: "both" reads a graph with annotations by its rules first; "grammar" reads it with the
    grammar reader alone, as every other graph; anything else is refused."""
    from kgqa.kg.registry import graph_spec
    from kgqa.planner.compiler import GRAMMAR, Compiler
    from kgqa.planner.schema_view import SchemaView

    with Graph(built_graphs["northwind"], read_only=True) as g:
        view = SchemaView.from_graph(g, graph_spec(g))
        q = "Which products are supplied by 'Exotic Liquids'?"
        both, grammar = Compiler(view), Compiler(view, reader=GRAMMAR)
        assert both.compile(q)[0].query is None  # the rules reader's plan
        plan = grammar.compile(q)[0]
        assert plan.frame is None and plan.query is not None
        assert sorted(r[0] for r in g.query(plan.cypher, plan.params).rows) == ["Aniseed Syrup", "Chai", "Chang"]
        with pytest.raises(ValueError, match="reader"):
            Compiler(view, reader="rules")
    from kgqa.settings import Settings

    with pytest.raises(ValueError, match="KGQA_READER"):  # a clear error at start, not graphs that do not open
        Settings(reader="rules")


AWARDS = ("CREATE NODE TABLE Person(pid INT64, name STRING, birthYear INT64, birthDate STRING, deathYear INT64, "
          "deathDate STRING, gender STRING, PRIMARY KEY(pid));\n"
          "CREATE NODE TABLE Award(aid STRING, field STRING, awardYear INT64, dateGiven STRING, PRIMARY KEY(aid));\n"
          "CREATE NODE TABLE Town(tname STRING, PRIMARY KEY(tname));\n"
          "CREATE NODE TABLE Country(cname STRING, PRIMARY KEY(cname));\n"
          "CREATE REL TABLE WON(FROM Person TO Award);\n"
          "CREATE REL TABLE BORN_IN(FROM Person TO Town);\n"
          "CREATE REL TABLE TOWN_IN(FROM Town TO Country);\n")
AWARD_ROWS = {"Person": "pid,name,birthYear,birthDate,deathYear,deathDate,gender\n"
                        "1,Ann,1879,1879-03-14,1955,1955-04-18,female\n2,Ben,1885,1885-10-07,1962,1962-11-18,male\n"
                        "3,Cid,1918,1918-05-11,1988,1988-02-15,female\n",
              "Award": "aid,field,awardYear,dateGiven\nphys-1921,Physics,1921,1922-11-09\n"
                       "phys-1922,Physics,1922,1922-12-10\nchem-1965,Chemistry,1965,1965-12-10\n",
              "Town": "tname\nUlm\nCopenhagen\nNew York\n",
              "WON": "from,to\n1,phys-1921\n2,phys-1922\n3,chem-1965\n",
              "BORN_IN": "from,to\n1,Ulm\n2,Copenhagen\n3,New York\n",
              "Country": "cname\nGermany\nDenmark\nUSA\n",
              "TOWN_IN": "from,to\nUlm,Germany\nCopenhagen,Denmark\nNew York,USA\n"}


def test_times_and_places_asked_and_years_of_the_label_they_modify(tmp_path, small_graph):
    """"When was Ann born?": the date the verb cues; "Where was Ben born?": the far end of the relationship the verb
    names; a year of a node with several times: the one the question cues ("born before 1880": birthYear), else
    the one that holds whole years (awardYear beside the dateGiven text), of the label the year modifies ("the
    1965 chemistry award") or of the value before ("the award in Physics in 1921"); a lower-case value said as the
    modifier of a label one relationship from its own ("physics people"); "women" as the subject."""
    folder = small_graph(tmp_path / "graphs", "awards", AWARDS, AWARD_ROWS)
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("When was Ann born?") == [["1879-03-14"]]
        assert answer("When did Ben die?") == [["1962-11-18"]]
        assert answer("Where was Ben born?") == [["Copenhagen"]]
        assert [row[0] for row in answer("Which people were born before 1880?")] == ["Ann"]
        assert [row[0] for row in answer("Who won the award in Physics in 1921?")] == ["Ann"]
        assert [row[0] for row in answer("Who won the 1965 chemistry award?")] == ["Cid"]
        assert [row[0] for row in answer("Which physics people were born in Copenhagen?")] == ["Ben"]
        # a value written as a noun for its nodes, the subject: those nodes are asked, not others that hold it
        assert answer("How many women have won an award?") == [[2]]
        assert [row[0] for row in answer("Which women won the Physics award?")] == ["Ann"]
        # a value that modifies the asked label's noun is the asked nodes' ("What Physics awards"), not another's
        assert [row[0] for row in answer("What Physics awards did Ben win?")] == ["phys-1922"]
        # a verb of a relationship on the path from another label named ("born": in a town of the country)
        assert answer("Which countries were women born in?") == [["Germany"], ["USA"]]
        # what a top list is ranked by, said after a phrase that modifies the label
        assert [row[0] for row in answer("List the top 1 awards in the Physics field by award year.")] == ["phys-1922"]


def test_annotated_role_nouns_are_the_nodes_at_their_end_of_a_relationship(graph):
    """An annotations file's ``rel:TYPE>Label`` ("actor": ``rel:ACTED_IN>Person``) is read by the grammar reader as
    the label's nodes at that end of the type: "the actors" are the people who acted in a movie, "the directors of
    The Matrix" those who directed it; the word as written, not the verb's stem ("review" is no reviewer)."""
    from kgqa.kg.registry import graph_spec
    from kgqa.planner.compiler import GRAMMAR, Compiler
    from kgqa.planner.schema_view import SchemaView

    g = graph("movies")
    c = Compiler(SchemaView.from_graph(g, graph_spec(g)), reader=GRAMMAR)

    def rows(question: str) -> list[list]:
        plans = c.compile(question)
        assert plans, c.unread(question, c.value_mentions(question))
        return [list(x)[:len(x) - len(plans[0].query.evidence)] for x in g.query(plans[0].cypher, plans[0].params).rows]

    actors = g.query("MATCH (p:Person)-[:ACTED_IN]->(:Movie) RETURN count(DISTINCT p)").rows[0][0]
    assert rows("How many actors are there?") == [[actors]]
    assert actors < g.query("MATCH (p:Person) RETURN count(p)").rows[0][0]
    assert rows("Which actor has appeared in the most movies?")[0][0] == "Tom Hanks"
    assert sorted(r[0] for r in rows("Who are the directors of The Matrix?")) == ["Lana Wachowski", "Lilly Wachowski"]
    assert rows("What is the average review rating of The Replacements?")[0][0] == pytest.approx(75.67, abs=0.01)
    # a role noun for a group ("cast") ranked by its size: the most of its nodes
    most = g.query("MATCH (p:Person)-[:ACTED_IN]->(m:Movie) RETURN m.title, count(DISTINCT p) AS n "
                   "ORDER BY n DESC, m.title LIMIT 1").rows
    assert rows("What movie has the biggest cast?") == [list(most[0])]


def test_annotated_value_words_and_a_label_noun_modifying_another(graph):
    """An annotations file's word for a value ("economics": ``Prize.category=Economic Sciences``) is that linked
    value; a label's noun modifying another label's ("Nobel laureates") leaves the head's nodes asked and counted;
    "when did ... first" asks the earliest time."""
    from kgqa.kg.registry import graph_spec
    from kgqa.planner.compiler import GRAMMAR, Compiler
    from kgqa.planner.schema_view import SchemaView

    g = graph("nobel")
    c = Compiler(SchemaView.from_graph(g, graph_spec(g)), reader=GRAMMAR)

    def rows(question: str) -> list[list]:
        plans = c.compile(question)
        assert plans, c.unread(question, c.value_mentions(question))
        return sorted(list(x)[:len(x) - len(plans[0].query.evidence)]
                      for x in g.query(plans[0].cypher, plans[0].params).rows)

    won = g.query("MATCH (l:Laureate)-[:WON]->(p:Prize {category: 'Economic Sciences', awardYear: 2001}) "
                  "RETURN l.knownName").rows
    assert [r[0] for r in rows("Who won the Nobel Prize in Economics in 2001?")] == sorted(r[0] for r in won) and won
    born = g.query("MATCH (l:Laureate)-[:BORN_IN]->(:City)-[:IS_CITY_IN]->(:Country {name: 'Germany'}) "
                   "RETURN count(DISTINCT l)").rows
    assert rows("How many Nobel laureates were born in Germany?") == born
    # "how many times": the occurrences, counted as the nodes named
    physics = g.query("MATCH (p:Prize {category: 'Physics'}) RETURN count(p)").rows
    assert rows("How many times has the Nobel Prize in Physics been awarded?") == physics
    # "when did ... first": the time of the earliest such edge's prize
    first = g.query("MATCH (l:Laureate {gender: 'female'})-[:WON]->(p:Prize) RETURN min(p.awardYear)").rows
    assert [r[-1] for r in rows("When did a woman first win a Nobel Prize?")] == first[0]


def test_a_verb_of_a_relationship_before_by_and_a_value_said_after_a_label_and_its_preposition(tmp_path, small_graph):
    """"ordered by 'c1' customer", "ordered by customers": where "ordered" names a relationship, who ordered, no sort; a
    value held by two labels, said after one of them and a preposition ("customers from Norway", "customers located
    in 'Norway'"), is that label's."""
    folder = small_graph(tmp_path / "graphs", "trade",
                         "CREATE NODE TABLE Customer(cid STRING, name STRING, country STRING, PRIMARY KEY(cid));\n"
                         "CREATE NODE TABLE Supplier(sid STRING, name STRING, country STRING, PRIMARY KEY(sid));\n"
                         "CREATE NODE TABLE Product(pid STRING, name STRING, price DOUBLE, PRIMARY KEY(pid));\n"
                         "CREATE REL TABLE ORDERED(FROM Customer TO Product);\n"
                         "CREATE REL TABLE SUPPLIES(FROM Supplier TO Product);\n",
                         {"Customer": "cid,name,country\nc1,Ann,Norway\nc2,Bob,Spain\n",
                          "Supplier": "sid,name,country\ns1,Acme,Spain\ns2,Fjord,Norway\n",
                          "Product": "pid,name,price\np1,tea,3\np2,cod,9\np3,ham,5\n",
                          "ORDERED": "from,to\nc1,p1\nc2,p2\nc2,p3\n",
                          "SUPPLIES": "from,to\ns1,p1\ns2,p2\ns2,p3\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("List the products ordered by 'c1' customer.") == [["tea", "p1"]]
        assert answer("List the products ordered by customers from Norway.") == [["tea", "p1"]]
        assert answer("List the products ordered by customers located in 'Spain'.") == [["cod", "p2"], ["ham", "p3"]]
        assert answer("List the products supplied by suppliers located in 'Spain'.") == [["tea", "p1"]]
        assert [row[0] for row in answer("List the products sorted by price.", ordered=True)] == ["tea", "ham", "cod"]


def test_the_noun_of_who_does_what_a_relationship_verb_says(tmp_path, small_graph):
    """With no annotations, "the directors" of DIRECTED from Person to Film are the people at its start ("How many
    directors are there?" counts those who directed, not every person); not where a schema name says the noun."""
    folder = small_graph(tmp_path / "graphs", "films",
                         "CREATE NODE TABLE Person(pid STRING, name STRING, born INT64, PRIMARY KEY(pid));\n"
                         "CREATE NODE TABLE Film(fid STRING, title STRING, PRIMARY KEY(fid));\n"
                         "CREATE REL TABLE DIRECTED(FROM Person TO Film);\n"
                         "CREATE REL TABLE ACTED_IN(FROM Person TO Film);\n",
                         {"Person": "pid,name,born\np1,Ann,1950\np2,Bob,1960\np3,Cid,1970\n",
                          "Film": "fid,title\nf1,Up\nf2,Jaws\n",
                          "DIRECTED": "from,to\np1,f1\np2,f2\n",
                          "ACTED_IN": "from,to\np2,f1\np3,f1\np3,f2\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("How many directors are there?") == [[2]]
        assert [row[0] for row in answer("Who are the directors of Up?")] == ["Ann"]
        assert [row[0] for row in answer("Which actors were born after 1955?")] == ["Bob", "Cid"]


def test_two_named_nodes_compared_by_a_time(tmp_path, small_graph):
    """"Who is older, A or B?" picks one, "Is A younger than B?" is yes or no (born the same year: not older),
    "How many years older is A than B?" the difference; by a time of another label joined ("Who won an award
    first") or the one the verb cues ("came out"); or by how many films each acted in."""
    folder = small_graph(tmp_path / "graphs", "films",
                         "CREATE NODE TABLE Person(pid STRING, name STRING, born INT64, PRIMARY KEY(pid));\n"
                         "CREATE NODE TABLE Film(fid STRING, title STRING, released INT64, PRIMARY KEY(fid));\n"
                         "CREATE NODE TABLE Award(aid STRING, category STRING, awardYear INT64, PRIMARY KEY(aid));\n"
                         "CREATE REL TABLE ACTED_IN(FROM Person TO Film);\n"
                         "CREATE REL TABLE WON(FROM Person TO Award);\n",
                         {"Person": "pid,name,born\np1,Ann Lee,1950\np2,Bob Ray,1960\np3,Cid Fox,1950\n",
                          "Film": "fid,title,released\nf1,Up,2001\nf2,Jaws,1975\n",
                          "Award": "aid,category,awardYear\na1,Drama,1990\na2,Comedy,1980\n",
                          "ACTED_IN": "from,to\np1,f1\np1,f2\np2,f2\n",
                          "WON": "from,to\np1,a1\np2,a2\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert answer("Who is older, Ann Lee or Bob Ray?") == [["Ann Lee"]]
        assert answer("Who is younger, Ann Lee or Bob Ray?") == [["Bob Ray"]]
        assert answer("Which came out first, Up or Jaws?") == [["Jaws"]]
        assert answer("Who won an award first, Ann Lee or Bob Ray?") == [["Bob Ray"]]
        assert answer("Is Ann Lee younger than Bob Ray?") == [[False]]
        assert answer("Was Jaws released before Up?") == [[True]]
        assert answer("How many years older is Ann Lee than Bob Ray?") == [[10]]
        assert answer("Is Ann Lee older than Cid Fox?") == [[False]]  # born the same year: not older
        # by how many of a label each reaches, each counted over its own match (Cid Fox acted in none)
        assert answer("Has Ann Lee acted in more films than Bob Ray?") == [[True, 2, 1]]  # with the two counts
        assert answer("Has Cid Fox acted in more films than Bob Ray?") == [[False, 0, 1]]
        assert answer("How many more films has Ann Lee acted in than Cid Fox?") == [[2, 2, 0]]
        assert answer("Ann Lee or Bob Ray: who acted in fewer films?") == [["Bob Ray", 1]]


def test_quantities_as_states_restated_heads_and_name_nouns(tmp_path, small_graph):
    """"products on order", "still in stock" (a number property whose words begin with a preposition, said bare):
    some of it; "a quantity per unit description" restates the text property; "companies" names the labels whose
    name property is a company name, the one joined chosen; "the number of discontinued products" counts the
    products; "the most costly products in terms of unit price" ranks once."""
    folder = small_graph(tmp_path / "graphs", "trade",
                         "CREATE NODE TABLE Product(pid STRING, productName STRING, unitsInStock INT64, "
                         "unitsOnOrder INT64, quantityPerUnit STRING, discontinued BOOLEAN, unitPrice DOUBLE, "
                         "PRIMARY KEY(pid));\n"
                         "CREATE NODE TABLE Supplier(sid STRING, companyName STRING, city STRING, PRIMARY KEY(sid));\n"
                         "CREATE NODE TABLE Customer(cid STRING, companyName STRING, city STRING, PRIMARY KEY(cid));\n"
                         "CREATE NODE TABLE Category(gid STRING, categoryName STRING, description STRING, "
                         "PRIMARY KEY(gid));\n"
                         "CREATE REL TABLE SUPPLIES(FROM Supplier TO Product);\n"
                         "CREATE REL TABLE PART_OF(FROM Product TO Category);\n"
                         "CREATE REL TABLE BOUGHT(FROM Customer TO Product);\n",
                         {"Product": "pid,productName,unitsInStock,unitsOnOrder,quantityPerUnit,discontinued,unitPrice\n"
                                     "p1,tea,10,0,20 bags,false,18\np2,cod,0,40,1 box,true,9\n"
                                     "p3,ham,5,10,10 boxes,true,30\np4,jam,0,0,12 jars,false,12\n",
                          "Supplier": "sid,companyName,city\ns1,Acme,London\ns2,Fjord,Oslo\n",
                          "Customer": "cid,companyName,city\nc1,Bistro,London\nc2,Cafe,Oslo\n",
                          "Category": "gid,categoryName,description\ng1,Drinks,tea and bags\ng2,Food,meat and fish\n",
                          "SUPPLIES": "from,to\ns1,p1\ns2,p2\ns2,p3\ns1,p4\n",
                          "PART_OF": "from,to\np1,g1\np2,g2\np3,g2\np4,g2\n",
                          "BOUGHT": "from,to\nc1,p2\nc2,p1\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert [row[0] for row in answer("Which products are on order?")] == ["cod", "ham"]
        assert [row[0] for row in answer("Find all products still in stock.")] == ["ham", "tea"]
        assert [row[0] for row in answer("Which products have a quantity per unit description containing 'bags'?")] \
            == ["tea"]
        assert [row[0] for row in answer("Which products are supplied by companies located in 'London'?")] == \
            ["jam", "tea"]
        assert [row[0] for row in answer("Which category has the highest number of discontinued products?")] == \
            ["Food"]
        assert [row[0] for row in answer("List the 2 most costly products in terms of unit price.", ordered=True)] \
            == ["ham", "tea"]


def test_a_named_node_of_the_asked_label_doing_another_verb(tmp_path, small_graph):
    """"actors in a film directed by Ann", "Who directed the films Cid acted in?": the named person is another node
    of the asked label, joined by its own verb to the film, not the one asked."""
    folder = small_graph(tmp_path / "graphs", "films",
                         "CREATE NODE TABLE Person(pid STRING, name STRING, PRIMARY KEY(pid));\n"
                         "CREATE NODE TABLE Film(fid STRING, title STRING, PRIMARY KEY(fid));\n"
                         "CREATE REL TABLE DIRECTED(FROM Person TO Film);\n"
                         "CREATE REL TABLE ACTED_IN(FROM Person TO Film);\n",
                         {"Person": "pid,name\np1,Ann\np2,Bob\np3,Cid\np4,Dee\n",
                          "Film": "fid,title\nf1,Up\nf2,Jaws\nf3,Heat\n",
                          "DIRECTED": "from,to\np1,f1\np2,f2\np4,f3\n",
                          "ACTED_IN": "from,to\np2,f1\np3,f1\np3,f2\np1,f3\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert [row[0] for row in answer("Which actors were in a film directed by Ann?")] == ["Bob", "Cid"]
        assert [row[0] for row in answer("Who directed the films Cid acted in?")] == ["Ann", "Bob"]


def test_a_decade_is_ten_years(tmp_path, small_graph):
    """"in the 1970s", "from the '90s", "the 90s": the years of that decade, of the one time property."""
    folder = small_graph(tmp_path / "graphs", "films",
                         "CREATE NODE TABLE Film(fid STRING, title STRING, released INT64, PRIMARY KEY(fid));\n",
                         {"Film": "fid,title,released\nf1,Up,1979\nf2,Jaws,1975\nf3,Heat,1995\nf4,Big,1980\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        assert [row[0] for row in answer("Which films were released in the 1970s?")] == ["Jaws", "Up"]
        assert [row[0] for row in answer("Which films were released in the '90s?")] == ["Heat"]
        assert answer("How many films were released in the 1980s?") == [[1]]


def test_a_verb_naming_the_label_between_ranks_the_asked_nodes(tmp_path, small_graph):
    """"Which books have been borrowed by the most (distinct) readers?": the verb names the label between (a loan),
    not a noun the count is said of, so the asked books are ranked by the readers reached through their loans,
    each reader counted once."""
    folder = small_graph(tmp_path / "graphs", "library",
                         "CREATE NODE TABLE Book(book_id INT64, book_title STRING, PRIMARY KEY(book_id));\n"
                         "CREATE NODE TABLE Borrowing(loan_id INT64, loan_date DATE, PRIMARY KEY(loan_id));\n"
                         "CREATE NODE TABLE Reader(reader_id INT64, reader_name STRING, PRIMARY KEY(reader_id));\n"
                         "CREATE REL TABLE BORROWS(FROM Borrowing TO Book);\n"
                         "CREATE REL TABLE MADE(FROM Reader TO Borrowing);\n",
                         {"Book": "book_id,book_title\n1,Emma\n2,Ulysses\n3,Walden\n",
                          "Borrowing": "loan_id,loan_date\n1,2024-01-02\n2,2024-01-03\n3,2024-02-01\n4,2024-03-05\n"
                                       "5,2024-03-06\n",
                          "Reader": "reader_id,reader_name\n1,Ann\n2,Bo\n3,Cy\n",
                          "BORROWS": "from,to\n1,1\n2,1\n3,1\n4,2\n5,2\n",
                          "MADE": "from,to\n1,1\n2,2\n3,3\n1,4\n1,5\n"})
    with Graph(folder, read_only=True) as g:
        _, answer = reader(g)
        # Emma: 3 loans by Ann, Bo, Cy (3 readers); Ulysses: 2 loans, both by Ann (1 reader); Walden none
        assert answer("Which 2 books have been borrowed by the most distinct readers?", ordered=True) == [
            ["Emma", 1, 3], ["Ulysses", 2, 1]]
        assert answer("Which book has been borrowed by the most readers?", ordered=True) == [["Emma", 1, 3]]


def test_a_noun_between_a_property_and_its_value_adds_nothing(shop):
    """"goods with a kind code 'Food'", "a kind option 'Hardware'": the noun between the property's word and the
    value it is given restates the value; with no value after it, the word is not read as one ("Which goods have a
    kind option?" declines; "have a kind code", the property's own name, asks which hold one)."""
    c, answer = reader(shop)
    assert answer("Which goods have a kind code 'Food'?") == [["bread", 5]]
    assert answer("List the goods with the kind option 'Hardware'.") == [["drill", 4], ["saw", 3]]
    q = "Which goods have a kind option?"
    assert c.grammar(q, c.value_mentions(q)) == []
