# coding: klingon-8
import os
