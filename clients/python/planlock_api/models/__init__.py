""" Contains all the data models used in inputs/outputs """

from .accepted import Accepted
from .act_body import ActBody
from .act_body_look_type_1 import ActBodyLookType1
from .act_body_secrets import ActBodySecrets
from .act_body_vars import ActBodyVars
from .act_result import ActResult
from .answer import Answer
from .answer_source import AnswerSource
from .answers import Answers
from .api_error_kind import ApiErrorKind
from .bound_inbox import BoundInbox
from .callback_state import CallbackState
from .candidate import Candidate
from .effect import Effect
from .effect_kind import EffectKind
from .email_seen import EmailSeen
from .ended_run import EndedRun
from .error_body import ErrorBody
from .error_detail import ErrorDetail
from .error_kind import ErrorKind
from .health import Health
from .located import Located
from .looked import Looked
from .openapi_response_200 import OpenapiResponse200
from .plan_preview import PlanPreview
from .plan_preview_request import PlanPreviewRequest
from .plan_schema_response_200 import PlanSchemaResponse200
from .planlock_plan import PlanlockPlan
from .planned import Planned
from .planned_line import PlannedLine
from .planned_tag import PlannedTag
from .plans_body import PlansBody
from .plans_body_look_type_1 import PlansBodyLookType1
from .plans_body_vars import PlansBodyVars
from .problem import Problem
from .question import Question
from .result_line import ResultLine
from .result_tag import ResultTag
from .review import Review
from .review_step import ReviewStep
from .run_body import RunBody
from .run_body_secrets import RunBodySecrets
from .run_body_vars import RunBodyVars
from .run_finished import RunFinished
from .run_list import RunList
from .run_progress import RunProgress
from .run_result import RunResult
from .run_started import RunStarted
from .run_status import RunStatus
from .run_summary import RunSummary
from .step_detail import StepDetail
from .step_error import StepError
from .step_outcome import StepOutcome
from .step_progress import StepProgress
from .step_ref import StepRef
from .step_state import StepState
from .step_status import StepStatus
from .step_type import StepType
from .step_type_0 import StepType0
from .step_type_1 import StepType1
from .step_type_2 import StepType2
from .step_type_3 import StepType3
from .step_type_4 import StepType4
from .step_type_5 import StepType5
from .step_type_6 import StepType6
from .step_type_7 import StepType7
from .step_type_8 import StepType8
from .step_type_9 import StepType9
from .usage import Usage
from .warning import Warning_

__all__ = (
    "Accepted",
    "ActBody",
    "ActBodyLookType1",
    "ActBodySecrets",
    "ActBodyVars",
    "ActResult",
    "Answer",
    "Answers",
    "AnswerSource",
    "ApiErrorKind",
    "BoundInbox",
    "CallbackState",
    "Candidate",
    "Effect",
    "EffectKind",
    "EmailSeen",
    "EndedRun",
    "ErrorBody",
    "ErrorDetail",
    "ErrorKind",
    "Health",
    "Located",
    "Looked",
    "OpenapiResponse200",
    "PlanlockPlan",
    "Planned",
    "PlannedLine",
    "PlannedTag",
    "PlanPreview",
    "PlanPreviewRequest",
    "PlansBody",
    "PlansBodyLookType1",
    "PlansBodyVars",
    "PlanSchemaResponse200",
    "Problem",
    "Question",
    "ResultLine",
    "ResultTag",
    "Review",
    "ReviewStep",
    "RunBody",
    "RunBodySecrets",
    "RunBodyVars",
    "RunFinished",
    "RunList",
    "RunProgress",
    "RunResult",
    "RunStarted",
    "RunStatus",
    "RunSummary",
    "StepDetail",
    "StepError",
    "StepOutcome",
    "StepProgress",
    "StepRef",
    "StepState",
    "StepStatus",
    "StepType",
    "StepType0",
    "StepType1",
    "StepType2",
    "StepType3",
    "StepType4",
    "StepType5",
    "StepType6",
    "StepType7",
    "StepType8",
    "StepType9",
    "Usage",
    "Warning_",
)
