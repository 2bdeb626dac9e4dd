# coding: gbk
import os
